#include "perf/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

#include "common/error.hpp"
#include "common/median.hpp"
#include "perf/bench_points.hpp"
#include "perf/run_points.hpp"
#include "perf/scenario.hpp"
#include "results/file_io.hpp"

namespace psbench::perf {
namespace {

std::string joined(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ",") + p;
  return out;
}

BenchPoints read_bench(const std::vector<std::string>& files) {
  BenchPoints points;
  for (const std::string& path : files) {
    // The trainer against local trainers (bench/trainer_limit.sh): nothing in it to fit, and run_all.sh writes it
    // beside the others, so that --bench DIR/*.json takes a whole run_all.sh folder.
    if (results::is_trainer_limit_file(path)) continue;
    const results::BenchFile file = results::read_bench_file(path);
    if (const auto* gb = std::get_if<results::GoogleBenchmarkFile>(&file)) {
      add_google_benchmark(*gb, path, points);
    } else {
      add_saturation(std::get<results::SaturationFile>(file), path, points);
    }
  }
  return points;
}

// A fit with the benchmark or run figure its points are.
template <typename Fit>
Fit named(Fit fit, const std::string& measured_by) {
  fit.measured_by = measured_by;
  return fit;
}

// A table of a quantity only some learners need: left uncalibrated (0 points) when no file measures it.
void fit_optional(const BenchPoints& points, const std::string& quantity, const std::vector<Point>& list,
                  const std::string& what, const std::string& benchmark, LinearFit& fit) {
  if (!list.empty()) fit = named(fit_table(list, points.sources.at(quantity), what), benchmark);
}

// The train steps, the evaluation calls and the FLOP rate of the benchmarked models.
void fit_models(const BenchPoints& points, Calibration& c) {
  for (const auto& [model, list] : points.step_s_vs_batch) {
    c.compute.push_back({model, named(fit_line(list, points.sources.at(model), "the step time of " + model),
                                      "BM_TrainStep (nn.json): seconds per step vs batch")});
  }
  for (const auto& [model, list] : points.evaluate_s_vs_samples) {
    c.evaluate.push_back(
        {model, named(fit_line(list, points.sources.at("evaluate " + model), "the evaluation call of " + model),
                      "BM_Evaluate (nn.json): seconds per Model::evaluate call vs its samples")});
  }
  if (!points.flops_per_s.empty()) {
    c.flops_per_s = named(fit_median(points.flops_per_s, points.sources.at("flops_per_s"), "the FLOP rate"),
                          "BM_TrainStep (nn.json): counter FLOP/s");
  }
}

// One reader's bandwidth from its read line: the slope's inverse, with the line's source and spread (a time's spread
// inverted: a slow read is a low bandwidth).
FittedValue bandwidth_of(const LinearFit& read) {
  return {read.slope > 0.0 ? 1.0 / read.slope : 0.0,
          read.source,
          read.residual,
          read.points,
          {1.0 / read.spread.high, 1.0 / read.spread.low},
          read.measured_by + ", inverted"};
}

void fit_bench(const BenchPoints& points, Calibration& c) {
  c.machine = points.machine;
  fit_models(points, c);
  fit_optional(points, "exchange_messages", points.exchange_messages, "push/pull",
               "BM_PushPull/path:0 (push_pull.json): seconds vs bytes", c.exchange_messages);
  fit_optional(points, "exchange_shared_window", points.exchange_shared_window, "push/pull",
               "BM_PushPull/path:1 (push_pull.json): seconds vs bytes", c.exchange_shared_window);
  fit_optional(points, "exchange_rma", points.exchange_rma, "push/pull",
               "BM_PushPull/path:2 (push_pull.json): seconds vs bytes", c.exchange_rma);
  fit_optional(points, "update", points.update, "the update time",
               "BM_LocalUpdate, BM_SgdUpdate (server_update.json, push_pull.json): seconds vs bytes", c.update);
  fit_optional(points, "update_compensated", points.update_compensated, "the delay-compensated update time",
               "BM_DelayCompensatedUpdate (server_update.json): seconds vs bytes", c.update_compensated);
  fit_optional(points, "quantize", points.quantize, "the 1-bit quantization time",
               "BM_OneBitQuantize (server_update.json): seconds vs fp32 bytes", c.quantize);
  fit_optional(points, "dequantize", points.dequantize, "the 1-bit dequantization time",
               "BM_OneBitDequantize (server_update.json): seconds vs fp32 bytes", c.dequantize);
  fit_optional(points, "allreduce", points.allreduce, "the allreduce time",
               "BM_Allreduce (push_pull.json): seconds vs ring bytes per rank", c.allreduce);
  if (!points.serial_read.empty()) {
    c.disk_sequential = named(fit_table(points.serial_read, points.sources.at("serial_read"), "the serial read"),
                              "BM_Hdf5SerialRead (data_io.json): seconds vs bytes");
    c.disk_sequential_Bps = bandwidth_of(c.disk_sequential);
  }
  if (!points.parallel_read_Bps.empty()) {
    c.disk_parallel_Bps =
        named(fit_median(points.parallel_read_Bps, points.sources.at("parallel_read"), "the parallel read"),
              "BM_Hdf5CollectiveRead (data_io.json): bytes / seconds");
  }
  // Medians per size: a launch's fresh pages cost what the machine freed before it, which moves between launches.
  fit_optional(points, "fresh_later_read", points.fresh_later_read, "the later fresh-page reads",
               "BM_Hdf5FreshLaterRead (data_io_fresh-*.json, --fresh-buffers): seconds vs bytes", c.disk_fresh_later);
  // Medians per ranks per core: each launch of bench_shared_steps is one k.
  fit_optional(points, "core_sharing", points.core_sharing, "the core-sharing stretch",
               "BM_TrainStepShared (shared_steps-*.json): counter stretch vs counter ranks_per_core", c.core_sharing);
}

// The set-up of one worker alone on a core: each BM_TrainSetUp run's set-up over the stretch the scenario applies at
// its workers per core, so that the model stretches it back where the workers share cores.
void fit_setup(const BenchPoints& points, Calibration& c) {
  if (points.setup_s_vs_workers_per_core.empty()) return;
  std::vector<double> alone;
  for (const Point& p : points.setup_s_vs_workers_per_core) alone.push_back(p.y / setup_stretch(p.x));
  c.setup_s = named(fit_median(alone, points.sources.at("setup"), "the set-up time"),
                    "BM_TrainSetUp (train_setup-w*.json): seconds / max(1, W/c)");
}

// D and its variability from server_saturation's one-server curve: D measured in the benchmark's own server
// loop, against the update fit at the same bytes.
void fit_saturation(const BenchPoints& points, Calibration& c) {
  for (const results::SaturationRun& run : points.saturation) {
    if (run.servers != 1 || run.service_us <= 0.0) continue;
    const std::string& source = points.sources.at("saturation");
    c.service_cv = {run.service_cv, source, 0.0, 1, {}, "server_saturation.json: service_cv (S = 1)"};
    const double fitted = c.update.at(4.0 * static_cast<double>(run.parameters));
    if (fitted > 0.0) {
      c.service_scale = {run.service_us * 1e-6 / fitted,
                         source,
                         0.0,
                         1,
                         {},
                         "server_saturation.json: service_us (S = 1) over the update fit"};
    }
    return;
  }
}

RunPoints read_runs(const std::vector<std::string>& files) {
  RunPoints points;
  for (const std::string& path : files) add_run(results::read_results_file(path), path, points);
  return points;
}

void replace_compute(Calibration& c, ComputeFit fit) {
  for (ComputeFit& existing : c.compute) {
    if (existing.model == fit.model) {
      existing = std::move(fit);
      return;
    }
  }
  c.compute.push_back(std::move(fit));
}

void replace_evaluate(Calibration& c, ComputeFit fit) {
  for (ComputeFit& existing : c.evaluate) {
    if (existing.model == fit.model) {
      existing = std::move(fit);
      return;
    }
  }
  c.evaluate.push_back(std::move(fit));
}

// The runs' final evaluations, as the calls the model times: each run's evaluation less its test split's read
// (t_open + bytes / B_seq, the calibration's first reader), over its ceil(test / 128) calls. The runs win over
// BM_Evaluate, which times a chunk's normalisation and forward pass on nn_bench's samples, not the runs' own shape.
void fit_run_evaluations(const RunPoints& runs, const std::string& source, Calibration& c) {
  if (c.disk_sequential_Bps.value <= 0.0) return;
  for (const auto& [model, list] : runs.evaluation) {
    std::vector<Point> calls;
    for (const EvaluationPoint& e : list) {
      const double read = c.disk_sequential.intercept + e.test_bytes / c.disk_sequential_Bps.value;
      const double chunk = std::min(e.test_samples, static_cast<double>(kEvaluationChunk));
      calls.push_back({chunk, std::max(0.0, e.seconds - read) / std::ceil(e.test_samples / kEvaluationChunk)});
    }
    replace_evaluate(c, {model, named(fit_line(calls, source, "the evaluation of " + model),
                                      "--runs: (train.evaluation_s - the test split's read) / its calls")});
  }
}

// How a run's total scatters around its configuration's median: every run of a configuration run twice or more.
void fit_run_spread(const RunPoints& runs, const std::string& source, Calibration& c) {
  std::vector<double> ratios;
  for (const auto& [key, totals] : runs.total_s) {
    const double middle = median(totals);
    if (totals.size() < 2 || middle <= 0.0) continue;
    for (const double total : totals) ratios.push_back(total / middle);
  }
  if (ratios.empty()) return;
  c.run_spread = named(fit_median(ratios, source, "the runs' own spread"),
                       "--runs: phases.total over its configuration's median, configurations run twice or more");
}

void fit_runs(const RunPoints& runs, Calibration& c) {
  if (runs.sources.empty()) return;
  const std::string source = joined(runs.sources);
  for (const auto& [model, list] : runs.step_s_vs_batch) {
    replace_compute(c, {model, named(fit_line(list, source, "the step time of " + model),
                                     "--runs: train.training_s / steps of runs with a core per rank")});
  }
  if (!runs.setup_s.empty()) {
    c.setup_s = named(fit_median(runs.setup_s, source, "the set-up time"),
                      "--runs: phases.total - train.training_s - the read's end");
  }
  if (!runs.sequential_read.empty()) {
    c.disk_sequential = named(fit_table(runs.sequential_read, source, "the sequential read"),
                              "--runs: each sequential reader's read seconds vs bytes");
    c.disk_sequential_Bps = bandwidth_of(c.disk_sequential);
  }
  if (!runs.parallel_read_Bps.empty()) {
    c.disk_parallel_Bps = named(fit_median(runs.parallel_read_Bps, source, "the parallel read"),
                                "--runs: all bytes / the slowest parallel reader");
  }
  std::vector<double> ratios;
  for (const Point& p : runs.service_s_vs_shard_bytes) {
    if (c.update.at(p.x) > 0.0) ratios.push_back(p.y / c.update.at(p.x));
  }
  if (!ratios.empty()) {
    c.service_scale = named(fit_median(ratios, source, "the service time over the update fit"),
                            "--runs: servers' service_s / updates over the update fit");
  }
  std::vector<double> overheads;
  const LinearFit& path = c.exchange_shared_window.points > 0 ? c.exchange_shared_window : c.exchange_messages;
  for (const Point& p : runs.exchange_s_vs_bytes)
    overheads.push_back(p.y - std::max(0.0, path.at(p.x) - c.update.at(p.x)));
  fit_run_evaluations(runs, source, c);
  fit_run_spread(runs, source, c);
  if (!overheads.empty()) {
    c.exchange_overhead_s = named(fit_median(overheads, source, "the exchange overhead"),
                                  "--runs: (push + pull) / steps - D_s less the benchmark's exchange");
  }
}

void check_complete(const Calibration& c) {
  if (c.compute.empty() && c.flops_per_s.points == 0)
    throw UserError("calibrate: no file gives a train-step time (BM_TrainStep* in nn.json, or --runs)");
  if (c.update.points == 0)
    throw UserError("calibrate: no file gives the server update time (BM_LocalUpdate or BM_SgdUpdate)");
  if (c.exchange_messages.points == 0 && c.exchange_shared_window.points == 0)
    throw UserError("calibrate: no file gives the push/pull time (BM_PushPull in push_pull.json)");
  if (c.disk_sequential_Bps.value <= 0.0)
    throw UserError("calibrate: no file gives the disk bandwidth (BM_Hdf5SerialRead in data_io.json, or --runs)");
}

}  // namespace

Calibration calibrate(const std::vector<std::string>& bench_files, const std::vector<std::string>& run_files) {
  if (bench_files.empty()) throw UserError("calibrate: --bench is an empty list");
  Calibration c;
  const BenchPoints points = read_bench(bench_files);
  fit_bench(points, c);
  fit_saturation(points, c);
  fit_setup(points, c);
  fit_runs(read_runs(run_files), c);
  check_complete(c);
  c.sources = bench_files;
  c.sources.insert(c.sources.end(), run_files.begin(), run_files.end());
  return c;
}

}  // namespace psbench::perf
