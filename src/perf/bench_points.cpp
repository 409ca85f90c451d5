#include "perf/bench_points.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "common/ring_allreduce_bytes.hpp"

namespace psbench::perf {
namespace {

// The model specs nn_bench trains (bench/nn/nn_bench.cpp).
const std::map<std::string, std::string> kTrainStepModels = {
    {"BM_TrainStepMlp", "mlp:512,256"}, {"BM_TrainStepCnn", "cnn"}, {"BM_TrainStepMlp128", "mlp:128"}};
// The same models' evaluation calls (bench/nn/nn_bench.cpp).
const std::map<std::string, std::string> kEvaluateModels = {
    {"BM_EvaluateMlp", "mlp:512,256"}, {"BM_EvaluateCnn", "cnn"}, {"BM_EvaluateMlp128", "mlp:128"}};

void note_source(BenchPoints& points, const std::string& quantity, const std::string& path) {
  std::string& list = points.sources[quantity];
  if (list.find(path) != std::string::npos) return;
  list += (list.empty() ? "" : ",") + path;
}

// The benchmark family (before the first '/') and its last argument (after the last '/').
std::string family_of(const std::string& name) { return name.substr(0, name.find('/')); }

// The last all-digit segment of a name: Google Benchmark appends /real_time, /manual_time or
// /iterations:N after the arguments.
double last_argument(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0) {
    const std::size_t slash = name.rfind('/', end - 1);
    if (slash == std::string::npos) return 0.0;
    const std::string segment = name.substr(slash + 1, end - slash - 1);
    if (!segment.empty() && segment.find_first_not_of("0123456789") == std::string::npos) return std::stod(segment);
    end = slash;
  }
  return 0.0;
}

int cores_of(const results::GoogleBenchmarkFile& file) {
  const int cores = file.context.psbench.cores;
  return cores > 0 ? cores : file.context.num_cpus;
}

void add_machine(const results::GoogleBenchmarkFile& file, const std::string& path, BenchPoints& points) {
  if (!points.machine.source.empty()) return;
  const auto& c = file.context.psbench;
  points.machine = {c.host.empty() ? file.context.host_name : c.host, c.cpu, cores_of(file), c.onednn_isa, path};
}

// A counter of the run, 0 where it has none.
double counter_of(const results::BenchmarkRun& run, const char* name) {
  const auto found = run.counters.find(name);
  return found == run.counters.end() ? 0.0 : found->second;
}

// An allreduce of x bytes among the run's `ranks` counter of ranks, as the bytes each rank sends in a ring: the
// abscissa that carries over to other rank counts.
void add_allreduce(const results::BenchmarkRun& run, const std::string& path, double x, double seconds,
                   BenchPoints& points) {
  const auto ranks = run.counters.find("ranks");
  if (ranks == run.counters.end() || ranks->second < 2.0) return;
  const auto sent = ring_allreduce_bytes(static_cast<std::uint64_t>(x), static_cast<int>(ranks->second));
  points.allreduce.push_back({static_cast<double>(sent), seconds});
  note_source(points, "allreduce", path);
}

}  // namespace

void add_google_benchmark(const results::GoogleBenchmarkFile& file, const std::string& path, BenchPoints& points) {
  add_machine(file, path, points);
  for (const results::BenchmarkRun& run : file.benchmarks) {
    if (run.run_type == "aggregate" || !run.error_message.empty()) continue;
    const std::string family = family_of(run.name);
    const double x = last_argument(run.name);
    const double seconds = results::real_time_seconds(run);
    if (x <= 0.0 || seconds <= 0.0) continue;
    if (const auto model = kTrainStepModels.find(family); model != kTrainStepModels.end()) {
      points.step_s_vs_batch[model->second].push_back({x, seconds});
      note_source(points, model->second, path);
      if (const auto rate = run.counters.find("FLOP/s"); rate != run.counters.end()) {
        points.flops_per_s.push_back(rate->second);
        note_source(points, "flops_per_s", path);
      }
    } else if (const auto evaluated = kEvaluateModels.find(family); evaluated != kEvaluateModels.end()) {
      points.evaluate_s_vs_samples[evaluated->second].push_back({x, seconds});
      note_source(points, "evaluate " + evaluated->second, path);
    } else if (family == "BM_TrainStepShared") {  // the stretch is the figure; its time is the concurrent step's
      const double per_core = counter_of(run, "ranks_per_core");
      const double stretch = counter_of(run, "stretch");
      if (per_core > 0.0 && stretch > 0.0) {
        points.core_sharing.push_back({per_core, stretch});
        note_source(points, "core_sharing", path);
      }
    } else if (family == "BM_PushPull") {  // path:0 messages, path:1 the node's window, path:2 RMA
      const bool shared = run.name.find("path:1") != std::string::npos;
      const bool rma = run.name.find("path:2") != std::string::npos;
      (rma      ? points.exchange_rma
       : shared ? points.exchange_shared_window
                : points.exchange_messages)
          .push_back({x, seconds});
      note_source(points, rma ? "exchange_rma" : shared ? "exchange_shared_window" : "exchange_messages", path);
    } else if (family == "BM_LocalUpdate" || family == "BM_SgdUpdate") {
      points.update.push_back({x, seconds});
      note_source(points, "update", path);
    } else if (family == "BM_DelayCompensatedUpdate") {
      points.update_compensated.push_back({x, seconds});
      note_source(points, "update_compensated", path);
    } else if (family == "BM_OneBitQuantize" || family == "BM_OneBitDequantize") {
      const bool quantize = family == "BM_OneBitQuantize";
      (quantize ? points.quantize : points.dequantize).push_back({x, seconds});
      note_source(points, quantize ? "quantize" : "dequantize", path);
    } else if (family == "BM_Allreduce") {
      add_allreduce(run, path, x, seconds, points);
    } else if (family == "BM_TrainSetUp") {  // the last argument is the run's workers
      points.setup_s_vs_workers_per_core.push_back({x / std::max(1, cores_of(file)), seconds});
      note_source(points, "setup", path);
    } else if (family == "BM_Hdf5SerialRead") {
      points.serial_read.push_back({x, seconds});
      note_source(points, "serial_read", path);
    } else if (family == "BM_Hdf5FreshLaterRead") {
      points.fresh_later_read.push_back({x, seconds});
      note_source(points, "fresh_later_read", path);
    } else if (family == "BM_Hdf5CollectiveRead") {
      points.parallel_read_Bps.push_back(x / seconds);
      note_source(points, "parallel_read", path);
    }
  }
}

void add_saturation(const results::SaturationFile& file, const std::string& path, BenchPoints& points) {
  for (const auto& run : file.runs) points.saturation.push_back(run);
  note_source(points, "saturation", path);
  if (points.machine.source.empty()) {
    points.machine = {file.context.host, file.context.cpu, file.context.cores, file.context.onednn_isa, path};
  }
}

}  // namespace psbench::perf
