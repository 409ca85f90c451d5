#include "perf/calibration.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace psbench::perf {
namespace {

nlohmann::json machine_json(const MachineFacts& m) {
  return {{"host", m.host}, {"cpu", m.cpu}, {"cores", m.cores}, {"onednn_isa", m.onednn_isa}, {"source", m.source}};
}

MachineFacts machine_from(const nlohmann::json& in) {
  MachineFacts m;
  m.host = in.at("host").get<std::string>();
  m.cpu = in.at("cpu").get<std::string>();
  m.cores = in.at("cores").get<int>();
  m.onednn_isa = in.at("onednn_isa").get<std::string>();
  m.source = in.at("source").get<std::string>();
  return m;
}

// A list of per-model fits as [{"model", key: fit}].
nlohmann::json compute_json(const std::vector<ComputeFit>& fits, const char* key) {
  nlohmann::json out = nlohmann::json::array();
  for (const ComputeFit& fit : fits) out.push_back({{"model", fit.model}, {key, fit.step}});
  return out;
}

std::vector<ComputeFit> compute_from(const nlohmann::json& in, const char* key) {
  std::vector<ComputeFit> out;
  for (const auto& entry : in) out.push_back({entry.at("model").get<std::string>(), entry.at(key).get<LinearFit>()});
  return out;
}

nlohmann::json calibration_json(const Calibration& c) {
  return {{"format", kCalibrationFormat},
          {"machine", machine_json(c.machine)},
          {"compute", compute_json(c.compute, "step_s_vs_batch")},
          {"flops_per_s", c.flops_per_s},
          {"compute_cv", c.compute_cv},
          {"exchange_messages_s_vs_bytes", c.exchange_messages},
          {"exchange_shared_window_s_vs_bytes", c.exchange_shared_window},
          {"exchange_rma_s_vs_bytes", c.exchange_rma},
          {"update_s_vs_bytes", c.update},
          {"update_compensated_s_vs_bytes", c.update_compensated},
          {"quantize_s_vs_bytes", c.quantize},
          {"dequantize_s_vs_bytes", c.dequantize},
          {"allreduce_s_vs_bytes", c.allreduce},
          {"service_cv", c.service_cv},
          {"service_scale", c.service_scale},
          {"disk_sequential_Bps", c.disk_sequential_Bps},
          {"disk_sequential_s_vs_bytes", c.disk_sequential},
          {"disk_parallel_Bps", c.disk_parallel_Bps},
          {"disk_fresh_later_s_vs_bytes", c.disk_fresh_later},
          {"setup_s", c.setup_s},
          {"exchange_overhead_s", c.exchange_overhead_s},
          {"evaluate", compute_json(c.evaluate, "s_vs_samples")},
          {"core_sharing_stretch_vs_ranks_per_core", c.core_sharing},
          {"run_total_spread", c.run_spread},
          {"sources", c.sources}};
}

void read_optional(const nlohmann::json& in, const char* key, LinearFit& fit) {
  if (in.contains(key)) fit = in.at(key).get<LinearFit>();
}

Calibration calibration_from(const nlohmann::json& in) {
  Calibration c;
  c.machine = machine_from(in.at("machine"));
  c.compute = compute_from(in.at("compute"), "step_s_vs_batch");
  c.flops_per_s = in.at("flops_per_s").get<FittedValue>();
  c.compute_cv = in.at("compute_cv").get<FittedValue>();
  c.exchange_messages = in.at("exchange_messages_s_vs_bytes").get<LinearFit>();
  c.exchange_shared_window = in.at("exchange_shared_window_s_vs_bytes").get<LinearFit>();
  read_optional(in, "exchange_rma_s_vs_bytes", c.exchange_rma);  // optional: calibrations made before RMA lack it
  c.update = in.at("update_s_vs_bytes").get<LinearFit>();
  if (in.contains("update_compensated_s_vs_bytes")) {  // optional: calibrations made before DC-ASGD lack it
    c.update_compensated = in.at("update_compensated_s_vs_bytes").get<LinearFit>();
  }
  read_optional(in, "quantize_s_vs_bytes", c.quantize);  // optional: calibrations made before 1-bit SGD lack them
  read_optional(in, "dequantize_s_vs_bytes", c.dequantize);
  read_optional(in, "allreduce_s_vs_bytes", c.allreduce);
  c.service_cv = in.at("service_cv").get<FittedValue>();
  c.service_scale = in.at("service_scale").get<FittedValue>();
  c.disk_sequential_Bps = in.at("disk_sequential_Bps").get<FittedValue>();
  c.disk_sequential = in.at("disk_sequential_s_vs_bytes").get<LinearFit>();
  c.disk_parallel_Bps = in.at("disk_parallel_Bps").get<FittedValue>();
  // optional: calibrations made before the fresh-page reads lack it
  if (in.contains("disk_fresh_later_s_vs_bytes"))
    c.disk_fresh_later = in.at("disk_fresh_later_s_vs_bytes").get<LinearFit>();
  c.setup_s = in.at("setup_s").get<FittedValue>();
  c.exchange_overhead_s = in.at("exchange_overhead_s").get<FittedValue>();
  // optional: calibrations made before the evaluation and core-sharing benchmarks lack them
  if (in.contains("evaluate")) c.evaluate = compute_from(in.at("evaluate"), "s_vs_samples");
  read_optional(in, "core_sharing_stretch_vs_ranks_per_core", c.core_sharing);
  // optional: calibrations made before the runs' own spread lack it
  if (in.contains("run_total_spread")) c.run_spread = in.at("run_total_spread").get<FittedValue>();
  c.sources = in.at("sources").get<std::vector<std::string>>();
  return c;
}

}  // namespace

void write_calibration(const Calibration& calibration, const std::string& path) {
  write_file_atomically(path, calibration_json(calibration).dump(2) + "\n");
}

Calibration read_calibration(const std::string& path) {
  std::ifstream file(path);
  if (!file)
    throw UserError("calibration '" + path +
                    "': no such file or not readable (make it with 'psbench model calibrate')");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throw UserError("calibration '" + path + "' is not valid JSON: " + error.what());
  }
  if (!document.is_object() || !document.contains("format") || !document["format"].is_number_integer())
    throw UserError("calibration '" + path + "' has no integer key 'format': it is not a calib.json");
  const int format = document["format"].get<int>();
  if (format != kCalibrationFormat) {
    throw UserError("calibration '" + path + "' has format " + std::to_string(format) + ", this psbench reads format " +
                    std::to_string(kCalibrationFormat) + ": recalibrate");
  }
  try {
    return calibration_from(document);
  } catch (const nlohmann::json::exception& error) {
    throw UserError("calibration '" + path + "' is malformed: " + error.what());
  }
}

double compute_seconds(const Calibration& calibration, const std::string& spec, double flops_per_sample, int batch) {
  for (const ComputeFit& fit : calibration.compute) {
    if (fit.model == spec) return fit.step.at(batch);
  }
  if (calibration.flops_per_s.value <= 0.0) {
    throw UserError("model '" + spec + "' was not benchmarked and the calibration has no FLOP rate to fall back on");
  }
  return flops_per_sample * batch / calibration.flops_per_s.value;
}

double evaluate_seconds(const Calibration& calibration, const std::string& spec, double flops_per_sample, int chunk) {
  for (const ComputeFit& fit : calibration.evaluate) {
    if (fit.model == spec) return fit.step.at(chunk);
  }
  return compute_seconds(calibration, spec, flops_per_sample, chunk) / 3.0;
}

double core_sharing_stretch(const Calibration& calibration, double ranks_per_core) {
  const LinearFit& fit = calibration.core_sharing;
  if (fit.points == 0 || fit.table.empty()) return 1.0;
  return fit.at(std::clamp(ranks_per_core, fit.table.front().x, fit.table.back().x));
}

}  // namespace psbench::perf
