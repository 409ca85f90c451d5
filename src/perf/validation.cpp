#include "perf/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/median.hpp"
#include "perf/interval.hpp"
#include "perf/predict.hpp"
#include "perf/run_points.hpp"
#include "results/file_io.hpp"

namespace psbench::perf {
namespace {

// The run's learner (its config's mode); local runs exchange nothing for the model to compare.
Learner learner_of(const results::ResultsFile& run, const std::string& path) {
  for (const Learner learner : {Learner::kAsync, Learner::kSync, Learner::kBmuf, Learner::kAverage}) {
    if (run.config.mode == learner_name(learner)) return learner;
  }
  throw UserError("run '" + path + "' is in " + run.config.mode +
                  " mode: validate compares runs of --mode async, sync, bmuf and average");
}

Scenario scenario_of(const results::ResultsFile& run, const std::string& path, const ValidateOptions& options,
                     int cores) {
  Scenario s;
  s.model = run.config.model;
  s.input = options.input;
  s.batch = run.config.batch;
  s.samples = run.train.total_samples;
  s.test_samples = run.train.test_samples;
  s.epochs = run.config.epochs;
  s.io = run.config.io == "parallel" ? IoMode::kParallel : IoMode::kSequential;
  s.read = run.config.read == "partition" ? ReadMode::kPartition : ReadMode::kWhole;
  s.platform = parse_platform(options.platform, cores);
  s.ranks_per_node = options.platform == "this" ? 0 : run.env.ranks / std::max<int>(1, run.env.hosts.size());
  s.calib_path = path;
  s.pipeline = run.config.pipeline.value_or(false);
  s.staleness = static_cast<int>(run.config.staleness.value_or(-1));
  s.delay_compensation = delay_compensated(run);
  s.learner = learner_of(run, path);
  s.onebit = run.config.compress.value_or("none") == "onebit";
  if (!run.config.intra_node.empty()) s.intra_node = run.config.intra_node;
  s.block_samples = run.config.block_samples.value_or(0);
  const ModelShape shape = model_shape(s.model, s.input);
  if (shape.parameters != run.model.parameters) {
    throw UserError("run '" + path + "': model " + s.model + " has " + std::to_string(run.model.parameters) +
                    " parameters, but " + std::to_string(shape.parameters) +
                    " at the input shape given: pass --input and --classes");
  }
  if (run.load.empty() || s.samples == 0) throw UserError("run '" + path + "' has no load[] entries or no samples");
  const double read_samples =
      s.read == ReadMode::kWhole ? static_cast<double>(s.samples) : static_cast<double>(s.samples) / run.env.workers;
  s.sample_bytes = static_cast<int>(std::lround(static_cast<double>(run.load.front().timing.bytes) / read_samples));
  return s;
}

// One comparison per configuration: the median, lowest and highest of its runs per phase.
std::vector<RunComparison> by_configuration(const std::vector<RunComparison>& runs) {
  std::vector<RunComparison> out;
  for (const RunComparison& run : runs) {
    const auto same = [&](const RunComparison& c) { return c.configuration == run.configuration; };
    if (std::any_of(out.begin(), out.end(), same)) continue;
    RunComparison merged = run;
    merged.files.clear();
    std::vector<const RunComparison*> repeats;
    for (const RunComparison& other : runs)
      if (same(other)) {
        repeats.push_back(&other);
        merged.files.push_back(other.file);
      }
    merged.repetitions = static_cast<int>(repeats.size());
    for (const auto& entry : run.measured) {
      const std::string& key = entry.first;
      std::vector<double> values;
      for (const RunComparison* r : repeats) values.push_back(r->measured.at(key));
      merged.measured[key] = median(values);
      merged.lowest[key] = *std::min_element(values.begin(), values.end());
      merged.highest[key] = *std::max_element(values.begin(), values.end());
    }
    out.push_back(std::move(merged));
  }
  return out;
}

// The prediction request of one run: its scenario, W and S, and the kinds asked for.
PredictRequest request_of(const Calibration& calibration, const results::ResultsFile& run, const std::string& path,
                          const ValidateOptions& options) {
  PredictRequest request;
  request.scenario = scenario_of(run, path, options, calibration.machine.cores);
  request.workers = {run.env.workers};
  request.servers = {learner_of(run, path) == Learner::kAsync ? run.env.servers : 0};
  request.kinds = options.kinds;
  request.sim.seed = options.seed;
  return request;
}

RunComparison compare(const Calibration& calibration, const std::string& path, const ValidateOptions& options) {
  const results::ResultsFile run = results::read_results_file(path);
  const Learner learner = learner_of(run, path);
  if (learner != Learner::kAsync &&
      std::find(options.kinds.begin(), options.kinds.end(), Kind::kSim) != options.kinds.end()) {
    throw UserError("run '" + path + "' is in " + run.config.mode +
                    " mode, which --kind sim does not simulate (it simulates the parameter servers' protocol): pass "
                    "--kind ideal, revised or mva");
  }
  RunComparison out;
  out.file = path;
  out.files = {path};
  out.workers = run.env.workers;
  out.servers = run.env.servers;
  out.io = run.config.io;
  out.configuration = configuration_of(run);
  const double total = run.phases[Phase::kTotal];
  out.measured = {{"init_io", read_end_s(run)},
                  {"compute", run.train.training_s},
                  {"total", total},
                  {"evaluation", run.train.evaluation_s},
                  {"init_io_phase", run.phases[Phase::kInitIo]},
                  {"setup_share", total > 0.0 ? run.phases[Phase::kInitTotal] / total : 0.0},
                  {"server_utilization", run.server.utilization},
                  {"updates_per_s", run.server.updates_per_s},
                  {"pushes_per_s", run.server.updates_per_s / std::max(1, run.env.servers)},
                  {"staleness_mean", run.server.staleness.mean}};
  out.lowest = out.highest = out.measured;
  if (options.kinds.empty()) return out;  // the measured figures alone
  for (const Prediction& p : predict(calibration, request_of(calibration, run, path, options))) {
    out.predicted[p.kind] = {{"init_io", p.init_io_s},
                             {"compute", p.compute_s},
                             {"total", p.total_s},
                             {"evaluation", p.evaluation_s},
                             {"server_utilization", p.server_utilization},
                             {"staleness_mean", p.staleness_mean}};
  }
  return out;
}

// Each configuration's 80 % intervals, predicted again for its first run with options.interval_samples draws.
void add_configuration_intervals(const Calibration& calibration, const ValidateOptions& options,
                                 std::vector<RunComparison>& configurations) {
  if (options.interval_samples < 2 || options.kinds.empty()) return;
  for (RunComparison& configuration : configurations) {
    const results::ResultsFile run = results::read_results_file(configuration.file);
    PredictRequest request = request_of(calibration, run, configuration.file, options);
    request.interval_samples = options.interval_samples;
    request.runs_in_median = configuration.repetitions;
    for (const Prediction& p : predict(calibration, request)) {
      const PredictionIntervals& i = *p.interval;
      configuration.interval[p.kind] = {
          {"init_io", i.init_io_s}, {"compute", i.compute_s}, {"total", i.total_s}, {"evaluation", i.evaluation_s}};
    }
  }
}

// 100 (predicted - measured) / measured; 0 for a measured value of 0.
double signed_percent_error(double predicted, double measured) {
  return measured > 0.0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

double percent_error(double predicted, double measured) { return std::abs(signed_percent_error(predicted, measured)); }

ErrorTable errors_of(const std::vector<RunComparison>& runs, const std::vector<Kind>& kinds) {
  ErrorTable table;
  for (const Kind kind : kinds) {
    for (const char* phase : kValidatedPhases) {
      std::vector<double> errors;
      for (const RunComparison& run : runs)
        errors.push_back(percent_error(run.predicted.at(kind).at(phase), run.measured.at(phase)));
      table[kind][phase] = error_spread(errors);
    }
  }
  return table;
}

// Each run of a configuration that has others against the median of those others, per phase.
std::map<std::string, ErrorSpread> repeat_errors_of(const std::vector<RunComparison>& runs, int& repeated_runs) {
  std::map<std::string, std::vector<double>> errors;
  repeated_runs = 0;
  for (const RunComparison& run : runs) {
    std::vector<const RunComparison*> others;
    for (const RunComparison& other : runs)
      if (&other != &run && other.configuration == run.configuration) others.push_back(&other);
    if (others.empty()) continue;
    ++repeated_runs;
    for (const char* phase : kValidatedPhases) {
      std::vector<double> values;
      for (const RunComparison* other : others) values.push_back(other->measured.at(phase));
      errors[phase].push_back(percent_error(run.measured.at(phase), median(values)));
    }
  }
  std::map<std::string, ErrorSpread> out;
  for (const auto& [phase, values] : errors) out[phase] = error_spread(values);
  return out;
}

// The header of a table of error spreads, its first column headed `label` and its mean `mean`.
void append_spread_header(std::string& out, const char* label, const char* mean) {
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %-10s %7s %7s %7s %7s\n", label, "phase", mean, "median", "p90", "max");
  out += line;
}

// One row of such a table.
void append_spread_row(std::string& out, const char* label, const char* phase, const ErrorSpread& e) {
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %-10s %7.1f %7.1f %7.1f %7.1f\n", label, phase, e.mean, e.median, e.p90,
                e.max);
  out += line;
}

void append_errors(std::string& out, const ErrorTable& table, const std::vector<Kind>& kinds) {
  append_spread_header(out, "kind", "MAPE");
  for (const Kind kind : kinds)
    for (const char* phase : kValidatedPhases) append_spread_row(out, kind_name(kind), phase, table.at(kind).at(phase));
}

// Per kind and phase, the configurations whose measured median lies inside the 80 % interval.
void append_coverage(std::string& out, const Validation& validation, const std::vector<Kind>& kinds) {
  if (validation.coverage.empty() || validation.coverage.begin()->second.begin()->second.count == 0) return;
  out += "\nMeasured medians inside the predicted 80 % interval (configurations), and the interval's median width\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %-10s %7s %7s %9s\n", "kind", "phase", "inside", "of", "width%");
  out += line;
  for (const Kind kind : kinds) {
    for (const char* phase : kValidatedPhases) {
      const IntervalCoverage& c = validation.coverage.at(kind).at(phase);
      std::snprintf(line, sizeof line, "%-8s %-10s %7d %7d %9.1f\n", kind_name(kind), phase, c.inside, c.count,
                    c.median_width_percent);
      out += line;
    }
  }
}

// Per kind, the utilisation's and the staleness's errors over the configurations.
void append_quantities(std::string& out, const Validation& validation, const std::vector<Kind>& kinds) {
  if (kinds.empty()) return;
  out +=
      "\nServer utilisation (absolute difference) and mean staleness (% error) against the measured, over the "
      "configurations\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %10s %10s %12s %12s\n", "kind", "util_mean", "util_max", "stale_MAPE",
                "stale_max");
  out += line;
  for (const Kind kind : kinds) {
    const QuantityErrors& e = validation.quantities.at(kind);
    std::snprintf(line, sizeof line, "%-8s %10.3f %10.3f %12.1f %12.1f\n", kind_name(kind), e.utilization_mean_abs_diff,
                  e.utilization_max_abs_diff, e.staleness_mape_percent, e.staleness_max_ape_percent);
    out += line;
  }
}

using Ordered = nlohmann::ordered_json;

Ordered phases_json(const std::map<std::string, double>& values) {
  Ordered out = Ordered::object();
  for (const char* phase : kValidatedPhases) out[phase] = values.at(phase);
  return out;
}

// The phases, then the quantities measured beside them.
Ordered measured_json(const std::map<std::string, double>& values) {
  Ordered out = phases_json(values);
  for (const char* key : kMeasuredQuantities) out[key] = values.at(key);
  return out;
}

Ordered comparison_json(const RunComparison& run, const std::vector<Kind>& kinds) {
  Ordered predicted = Ordered::object();
  Ordered error = Ordered::object();
  Ordered interval = Ordered::object();
  for (const Kind kind : kinds) {
    predicted[kind_name(kind)] = phases_json(run.predicted.at(kind));
    Ordered errors = Ordered::object();
    for (const char* phase : kValidatedPhases)
      errors[phase] = signed_percent_error(run.predicted.at(kind).at(phase), run.measured.at(phase));
    error[kind_name(kind)] = errors;
    for (const char* quantity : kComparedQuantities)
      predicted[kind_name(kind)][quantity] = run.predicted.at(kind).at(quantity);
    if (const auto i = run.interval.find(kind); i != run.interval.end()) {
      Ordered phases = Ordered::object();
      for (const char* phase : kValidatedPhases) phases[phase] = {i->second.at(phase).low, i->second.at(phase).high};
      interval[kind_name(kind)] = phases;
    }
  }
  return Ordered{{"configuration", run.configuration},
                 {"files", run.files},
                 {"workers", run.workers},
                 {"servers", run.servers},
                 {"io", run.io},
                 {"repetitions", run.repetitions},
                 {"measured", measured_json(run.measured)},
                 {"lowest", measured_json(run.lowest)},
                 {"highest", measured_json(run.highest)},
                 {"predicted", predicted},
                 {"error_percent", error},
                 {"interval", run.interval.empty() ? Ordered(nullptr) : interval}};
}

// kind -> phase -> one figure of the spread.
Ordered spread_json(const ErrorTable& table, const std::vector<Kind>& kinds, double ErrorSpread::*figure) {
  Ordered out = Ordered::object();
  for (const Kind kind : kinds) {
    Ordered phases = Ordered::object();
    for (const char* phase : kValidatedPhases) phases[phase] = table.at(kind).at(phase).*figure;
    out[kind_name(kind)] = phases;
  }
  return out;
}

// The repeats' spread: count, then per phase the mean, median, 90th percentile and largest error; null without any.
Ordered repeats_json(const Validation& validation) {
  if (validation.repeat_errors.empty()) return nullptr;
  Ordered out{{"count", validation.repeated_runs}};
  const std::pair<const char*, double ErrorSpread::*> figures[] = {{"mape_percent", &ErrorSpread::mean},
                                                                   {"median_ape_percent", &ErrorSpread::median},
                                                                   {"p90_ape_percent", &ErrorSpread::p90},
                                                                   {"max_ape_percent", &ErrorSpread::max}};
  for (const auto& [key, figure] : figures) {
    Ordered phases = Ordered::object();
    for (const char* phase : kValidatedPhases) phases[phase] = validation.repeat_errors.at(phase).*figure;
    out[key] = phases;
  }
  return out;
}

// kind -> phase -> {inside, count, share, median_width_percent} over the configurations; null without intervals.
Ordered coverage_json(const Validation& validation, const std::vector<Kind>& kinds) {
  bool any = false;
  Ordered out{{"coverage", kIntervalCoverage}};
  for (const Kind kind : kinds) {
    Ordered phases = Ordered::object();
    for (const char* phase : kValidatedPhases) {
      const IntervalCoverage& c = validation.coverage.at(kind).at(phase);
      any = any || c.count > 0;
      phases[phase] = {{"inside", c.inside},
                       {"count", c.count},
                       {"share", c.count > 0 ? static_cast<double>(c.inside) / c.count : 0.0},
                       {"median_width_percent", c.median_width_percent}};
    }
    out[kind_name(kind)] = phases;
  }
  return any ? out : Ordered(nullptr);
}

// kind -> the utilisation's and the staleness's errors over the configurations.
Ordered quantities_json(const Validation& validation, const std::vector<Kind>& kinds) {
  Ordered out = Ordered::object();
  for (const Kind kind : kinds) {
    const QuantityErrors& e = validation.quantities.at(kind);
    out[kind_name(kind)] = {{"utilization_mean_abs_diff", e.utilization_mean_abs_diff},
                            {"utilization_max_abs_diff", e.utilization_max_abs_diff},
                            {"staleness_mape_percent", e.staleness_mape_percent},
                            {"staleness_max_ape_percent", e.staleness_max_ape_percent},
                            {"staleness_count", e.staleness_count}};
  }
  return out;
}

Ordered summary_json(const std::vector<RunComparison>& runs, const ErrorTable& table, const std::vector<Kind>& kinds) {
  Ordered within = Ordered::object();
  for (const Kind kind : kinds) {
    Ordered counts = Ordered::object();
    for (const char* phase : kValidatedPhases) {
      int count = 0;
      for (const RunComparison& run : runs)
        if (percent_error(run.predicted.at(kind).at(phase), run.measured.at(phase)) <= kValidationBandPercent) ++count;
      counts[phase] = count;
    }
    within[kind_name(kind)] = counts;
  }
  return Ordered{{"count", runs.size()},
                 {"mape_percent", spread_json(table, kinds, &ErrorSpread::mean)},
                 {"median_ape_percent", spread_json(table, kinds, &ErrorSpread::median)},
                 {"p90_ape_percent", spread_json(table, kinds, &ErrorSpread::p90)},
                 {"max_ape_percent", spread_json(table, kinds, &ErrorSpread::max)},
                 {"within_band", within}};
}

}  // namespace

ErrorSpread error_spread(const std::vector<double>& absolute_errors) {
  ErrorSpread spread;
  double sum = 0.0;
  for (const double e : absolute_errors) sum += e;
  spread.mean = sum / static_cast<double>(absolute_errors.size());
  spread.median = percentile(absolute_errors, 0.5);
  spread.p90 = percentile(absolute_errors, 0.9);
  spread.max = percentile(absolute_errors, 1.0);
  return spread;
}

CoverageTable interval_coverage(const std::vector<RunComparison>& configurations, const std::vector<Kind>& kinds) {
  CoverageTable table;
  for (const Kind kind : kinds) {
    for (const char* phase : kValidatedPhases) {
      IntervalCoverage& coverage = table[kind][phase];
      std::vector<double> widths;
      for (const RunComparison& c : configurations) {
        const auto intervals = c.interval.find(kind);
        if (intervals == c.interval.end()) continue;
        const TimeInterval& i = intervals->second.at(phase);
        const double measured = c.measured.at(phase);
        ++coverage.count;
        if (i.low <= measured && measured <= i.high) ++coverage.inside;
        const double predicted = c.predicted.at(kind).at(phase);
        widths.push_back(predicted > 0.0 ? 100.0 * (i.high - i.low) / predicted : 0.0);
      }
      if (!widths.empty()) coverage.median_width_percent = median(widths);
    }
  }
  return table;
}

std::map<Kind, QuantityErrors> quantity_errors(const std::vector<RunComparison>& runs, const std::vector<Kind>& kinds) {
  std::map<Kind, QuantityErrors> out;
  for (const Kind kind : kinds) {
    std::vector<double> utilization;
    std::vector<double> staleness;
    for (const RunComparison& run : runs) {
      if (run.servers < 1) continue;
      const auto& predicted = run.predicted.at(kind);
      utilization.push_back(std::abs(predicted.at("server_utilization") - run.measured.at("server_utilization")));
      const double measured = run.measured.at("staleness_mean");
      if (measured > 0.0) staleness.push_back(percent_error(predicted.at("staleness_mean"), measured));
    }
    QuantityErrors& e = out[kind];
    if (!utilization.empty()) {
      const ErrorSpread spread = error_spread(utilization);
      e.utilization_mean_abs_diff = spread.mean;
      e.utilization_max_abs_diff = spread.max;
    }
    if (!staleness.empty()) {
      const ErrorSpread spread = error_spread(staleness);
      e.staleness_mape_percent = spread.mean;
      e.staleness_max_ape_percent = spread.max;
      e.staleness_count = static_cast<int>(staleness.size());
    }
  }
  return out;
}

std::string format_validation_json(const Validation& validation, const std::vector<Kind>& kinds) {
  Ordered order = Ordered::array();
  for (const Kind kind : kinds) order.push_back(kind_name(kind));
  Ordered phases = Ordered::array();
  for (const char* phase : kValidatedPhases) phases.push_back(phase);
  Ordered configurations = Ordered::array();
  for (const RunComparison& run : validation.configurations) configurations.push_back(comparison_json(run, kinds));
  Ordered runs = Ordered::array();
  for (const RunComparison& run : validation.runs) runs.push_back(comparison_json(run, kinds));
  return Ordered{{"format", kValidationJsonFormat},
                 {"kind_order", order},
                 {"phases", phases},
                 {"band_percent", kValidationBandPercent},
                 {"configurations", configurations},
                 {"runs", runs},
                 {"over_configurations", summary_json(validation.configurations, validation.errors, kinds)},
                 {"over_runs", summary_json(validation.runs, validation.run_errors, kinds)},
                 {"repeats", repeats_json(validation)},
                 {"interval_coverage", coverage_json(validation, kinds)},
                 {"quantity_errors", quantities_json(validation, kinds)}}
             .dump(2) +
         "\n";
}

Validation validate_runs(const Calibration& calibration, const std::vector<std::string>& run_files,
                         const ValidateOptions& options) {
  if (run_files.empty()) throw UserError("validate: no results files given");
  Validation v;
  for (const std::string& path : run_files) v.runs.push_back(compare(calibration, path, options));
  v.configurations = by_configuration(v.runs);
  v.errors = errors_of(v.configurations, options.kinds);
  v.run_errors = errors_of(v.runs, options.kinds);
  v.repeat_errors = repeat_errors_of(v.runs, v.repeated_runs);
  add_configuration_intervals(calibration, options, v.configurations);
  v.coverage = interval_coverage(v.configurations, options.kinds);
  v.quantities = quantity_errors(v.configurations, options.kinds);
  return v;
}

std::string format_validation(const Validation& validation, const std::vector<Kind>& kinds) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-40s %3s %3s %-10s %-10s %4s %10s %17s", "run", "W", "S", "io", "phase", "runs",
                "measured", "range");
  out += line;
  for (const Kind kind : kinds) {
    std::snprintf(line, sizeof line, " %10s %7s", kind_name(kind), "err%");
    out += line;
  }
  out += "\n";
  for (const RunComparison& run : validation.configurations) {
    for (const char* phase : kValidatedPhases) {
      const double measured = run.measured.at(phase);
      std::snprintf(line, sizeof line, "%-40s %3d %3d %-10s %-10s %4d %10.3f %8.3f-%-8.3f", run.file.c_str(),
                    run.workers, run.servers, run.io.c_str(), phase, run.repetitions, measured, run.lowest.at(phase),
                    run.highest.at(phase));
      out += line;
      for (const Kind kind : kinds) {
        const double predicted = run.predicted.at(kind).at(phase);
        std::snprintf(line, sizeof line, " %10.3f %7.1f", predicted, percent_error(predicted, measured));
        out += line;
      }
      out += "\n";
    }
  }
  out += "\nAbsolute error (%) over " + std::to_string(validation.configurations.size()) +
         " configurations (the median of " + std::to_string(validation.runs.size()) + " runs)\n";
  append_errors(out, validation.errors, kinds);
  out += "\nAbsolute error (%) over every run, one by one\n";
  append_errors(out, validation.run_errors, kinds);
  append_coverage(out, validation, kinds);
  append_quantities(out, validation, kinds);
  if (validation.repeat_errors.empty()) return out;
  out += "\nThe runs' own spread (%): each of " + std::to_string(validation.repeated_runs) +
         " repeated runs against the median of its configuration's others\n";
  append_spread_header(out, "", "mean");
  for (const char* phase : kValidatedPhases)
    append_spread_row(out, "repeats", phase, validation.repeat_errors.at(phase));
  return out;
}

}  // namespace psbench::perf
