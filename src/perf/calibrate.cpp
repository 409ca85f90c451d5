#include "perf/calibrate.hpp"

#include <variant>

#include "common/error.hpp"
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

// A table of a quantity only some learners need: left uncalibrated (0 points) when no file measures it.
void fit_optional(const BenchPoints& points, const std::string& quantity, const std::vector<Point>& list,
                  const std::string& what, LinearFit& fit) {
  if (!list.empty()) fit = fit_table(list, points.sources.at(quantity), what);
}

void fit_bench(const BenchPoints& points, Calibration& c) {
  c.machine = points.machine;
  for (const auto& [model, list] : points.step_s_vs_batch)
    c.compute.push_back({model, fit_line(list, points.sources.at(model), "the step time of " + model)});
  if (!points.flops_per_s.empty())
    c.flops_per_s = fit_mean(points.flops_per_s, points.sources.at("flops_per_s"), "the FLOP rate");
  if (!points.exchange_messages.empty())
    c.exchange_messages = fit_table(points.exchange_messages, points.sources.at("exchange_messages"), "push/pull");
  if (!points.exchange_shared_window.empty())
    c.exchange_shared_window =
        fit_table(points.exchange_shared_window, points.sources.at("exchange_shared_window"), "push/pull");
  if (!points.update.empty()) c.update = fit_table(points.update, points.sources.at("update"), "the update time");
  if (!points.update_compensated.empty()) {
    c.update_compensated = fit_table(points.update_compensated, points.sources.at("update_compensated"),
                                     "the delay-compensated update time");
  }
  fit_optional(points, "quantize", points.quantize, "the 1-bit quantization time", c.quantize);
  fit_optional(points, "dequantize", points.dequantize, "the 1-bit dequantization time", c.dequantize);
  fit_optional(points, "allreduce", points.allreduce, "the allreduce time", c.allreduce);
  if (!points.serial_read.empty()) {
    c.disk_sequential = fit_line(points.serial_read, points.sources.at("serial_read"), "the serial read");
    c.disk_sequential_Bps = {c.disk_sequential.slope > 0 ? 1.0 / c.disk_sequential.slope : 0.0,
                             c.disk_sequential.source, c.disk_sequential.residual, c.disk_sequential.points};
  }
  if (!points.parallel_read_Bps.empty())
    c.disk_parallel_Bps = fit_mean(points.parallel_read_Bps, points.sources.at("parallel_read"), "the parallel read");
  // Medians per size: a launch's fresh pages cost what the machine freed before it, which moves between launches.
  if (!points.fresh_later_read.empty()) {
    c.disk_fresh_later =
        fit_table(points.fresh_later_read, points.sources.at("fresh_later_read"), "the later fresh-page reads");
  }
}

// The set-up of one worker alone on a core: each BM_TrainSetUp run's set-up over the stretch the scenario applies at
// its workers per core, so that the model stretches it back where the workers share cores.
void fit_setup(const BenchPoints& points, Calibration& c) {
  if (points.setup_s_vs_workers_per_core.empty()) return;
  std::vector<double> alone;
  for (const Point& p : points.setup_s_vs_workers_per_core) alone.push_back(p.y / setup_stretch(p.x));
  c.setup_s = fit_mean(alone, points.sources.at("setup"), "the set-up time");
}

// D and its variability from server_saturation's one-server curve: D measured in the benchmark's own server
// loop, against the update fit at the same bytes.
void fit_saturation(const BenchPoints& points, Calibration& c) {
  for (const results::SaturationRun& run : points.saturation) {
    if (run.servers != 1 || run.service_us <= 0.0) continue;
    const std::string& source = points.sources.at("saturation");
    c.service_cv = {run.service_cv, source, 0.0, 1};
    const double fitted = c.update.at(4.0 * static_cast<double>(run.parameters));
    if (fitted > 0.0) c.service_scale = {run.service_us * 1e-6 / fitted, source, 0.0, 1};
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

void fit_runs(const RunPoints& runs, Calibration& c) {
  if (runs.sources.empty()) return;
  const std::string source = joined(runs.sources);
  for (const auto& [model, list] : runs.step_s_vs_batch)
    replace_compute(c, {model, fit_line(list, source, "the step time of " + model)});
  if (!runs.setup_s.empty()) c.setup_s = fit_mean(runs.setup_s, source, "the set-up time");
  if (!runs.sequential_read.empty()) {
    c.disk_sequential = fit_line(runs.sequential_read, source, "the sequential read");
    c.disk_sequential_Bps = {1.0 / c.disk_sequential.slope, source, c.disk_sequential.residual,
                             c.disk_sequential.points};
  }
  if (!runs.parallel_read_Bps.empty())
    c.disk_parallel_Bps = fit_mean(runs.parallel_read_Bps, source, "the parallel read");
  std::vector<double> ratios;
  for (const Point& p : runs.service_s_vs_shard_bytes) {
    if (c.update.at(p.x) > 0.0) ratios.push_back(p.y / c.update.at(p.x));
  }
  if (!ratios.empty()) c.service_scale = fit_mean(ratios, source, "the service time over the update fit");
  std::vector<double> overheads;
  const LinearFit& path = c.exchange_shared_window.points > 0 ? c.exchange_shared_window : c.exchange_messages;
  for (const Point& p : runs.exchange_s_vs_bytes)
    overheads.push_back(p.y - std::max(0.0, path.at(p.x) - c.update.at(p.x)));
  if (!overheads.empty()) c.exchange_overhead_s = fit_mean(overheads, source, "the exchange overhead");
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
