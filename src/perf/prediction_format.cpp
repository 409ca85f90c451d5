#include "perf/prediction_format.hpp"

#include <algorithm>
#include <cstdio>

#include "perf/interval.hpp"

namespace psbench::perf {
namespace {

std::string knee_text(const Prediction& p, const char* format) {
  if (!p.knee_workers) return "";
  char text[32];
  std::snprintf(text, sizeof text, format, *p.knee_workers);
  return text;
}

// The distinct words name(p) of the predictions, comma-separated in the order they first come.
template <typename Name>
std::string joined_modes(const std::vector<Prediction>& predictions, Name name) {
  std::vector<std::string> words;
  for (const Prediction& p : predictions) {
    if (std::ranges::find(words, name(p)) == words.end()) words.emplace_back(name(p));
  }
  std::string joined;
  for (const std::string& word : words) joined += (joined.empty() ? "" : ",") + word;
  return joined;
}

// [p10, p90] of one time, or null without intervals.
nlohmann::ordered_json interval_json(const Prediction& p, TimeInterval PredictionIntervals::*time) {
  if (!p.interval) return nullptr;
  return nlohmann::ordered_json::array({((*p.interval).*time).low, ((*p.interval).*time).high});
}

// The csv's "low,high" of one time, or ",".
std::string interval_csv(const Prediction& p, TimeInterval PredictionIntervals::*time) {
  if (!p.interval) return ",";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g,%.9g", ((*p.interval).*time).low, ((*p.interval).*time).high);
  return text;
}

}  // namespace

std::string interval_text(const Prediction& p) {
  if (!p.interval) return "-";
  char text[48];
  std::snprintf(text, sizeof text, "%.3f-%.3f", p.interval->total_s.low, p.interval->total_s.high);
  return text;
}

nlohmann::ordered_json prediction_json(const Prediction& p) {
  nlohmann::ordered_json out = {{"kind", kind_name(p.kind)},
                                {"workers", p.workers},
                                {"servers", p.servers},
                                {"io", io_mode_name(p.io)},
                                {"read", read_mode_name(p.read)},
                                {"init_io_s", p.init_io_s},
                                {"compute_s", p.compute_s},
                                {"total_s", p.total_s},
                                {"evaluation_s", p.evaluation_s},
                                {"init_io_s_interval", interval_json(p, &PredictionIntervals::init_io_s)},
                                {"compute_s_interval", interval_json(p, &PredictionIntervals::compute_s)},
                                {"total_s_interval", interval_json(p, &PredictionIntervals::total_s)},
                                {"evaluation_s_interval", interval_json(p, &PredictionIntervals::evaluation_s)},
                                {"updates_per_s", p.updates_per_s},
                                {"samples_per_s", p.samples_per_s},
                                {"server_utilization", p.server_utilization},
                                {"staleness_mean", p.staleness_mean}};
  out["knee_workers"] = p.knee_workers ? nlohmann::ordered_json(*p.knee_workers) : nlohmann::ordered_json(nullptr);
  return out;
}

nlohmann::ordered_json scenario_json(const Scenario& scenario) {
  return {{"model", scenario.model},
          {"batch", scenario.batch},
          {"samples", scenario.samples},
          {"epochs", scenario.epochs},
          {"io", io_mode_name(scenario.io)},
          {"pipeline", scenario.pipeline},
          {"staleness", scenario.staleness},
          {"mode", learner_name(scenario.learner)},
          {"compress", scenario.onebit ? "onebit" : "none"},
          {"block_samples", scenario.block_samples},
          {"read", read_mode_name(scenario.read)},
          {"platform", scenario.platform.text},
          {"ranks_per_node", scenario.ranks_per_node},
          {"calib", scenario.calib_path}};
}

std::string format_json(const Scenario& scenario, const std::vector<Prediction>& predictions) {
  nlohmann::ordered_json order = nlohmann::ordered_json::array();
  for (const Kind kind : kAllKinds) order.push_back(kind_name(kind));
  nlohmann::ordered_json inputs = scenario_json(scenario);
  inputs["io"] = joined_modes(predictions, [](const Prediction& p) { return io_mode_name(p.io); });
  inputs["read"] = joined_modes(predictions, [](const Prediction& p) { return read_mode_name(p.read); });
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Prediction& p : predictions) list.push_back(prediction_json(p));
  return nlohmann::ordered_json{{"format", 1},
                                {"kind_order", order},
                                {"inputs", inputs},
                                {"interval_coverage", kIntervalCoverage},
                                {"predictions", list}}
             .dump(2) +
         "\n";
}

std::string format_csv(const std::vector<Prediction>& predictions) {
  std::string out =
      "kind,workers,servers,io,read,init_io_s,compute_s,total_s,updates_per_s,samples_per_s,server_utilization,"
      "staleness_mean,knee_workers,evaluation_s,init_io_s_p10,init_io_s_p90,compute_s_p10,compute_s_p90,total_s_p10,"
      "total_s_p90\n";
  for (const Prediction& p : predictions) {
    char line[768];
    std::snprintf(line, sizeof line, "%s,%d,%d,%s,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%s,%.9g,%s,%s,%s\n",
                  kind_name(p.kind), p.workers, p.servers, io_mode_name(p.io), read_mode_name(p.read), p.init_io_s,
                  p.compute_s, p.total_s, p.updates_per_s, p.samples_per_s, p.server_utilization, p.staleness_mean,
                  knee_text(p, "%.6g").c_str(), p.evaluation_s,
                  interval_csv(p, &PredictionIntervals::init_io_s).c_str(),
                  interval_csv(p, &PredictionIntervals::compute_s).c_str(),
                  interval_csv(p, &PredictionIntervals::total_s).c_str());
    out += line;
  }
  return out;
}

std::string format_table(const std::vector<Prediction>& predictions) {
  char line[512];
  std::snprintf(line, sizeof line, "%-8s %8s %7s %-10s %10s %11s %11s %17s %8s %12s %12s %6s %9s %8s\n", "kind",
                "workers", "servers", "io", "init_io_s", "compute_s", "total_s", "total_80%", "eval_s", "updates/s",
                "samples/s", "util", "stale", "knee");
  std::string out = line;
  for (const Prediction& p : predictions) {
    const std::string knee = p.knee_workers ? knee_text(p, "%.1f") : "-";
    std::snprintf(line, sizeof line,
                  "%-8s %8d %7d %-10s %10.3f %11.3f %11.3f %17s %8.3f %12.1f %12.1f %6.3f %9.2f %8s\n",
                  kind_name(p.kind), p.workers, p.servers, io_mode_name(p.io), p.init_io_s, p.compute_s, p.total_s,
                  interval_text(p).c_str(), p.evaluation_s, p.updates_per_s, p.samples_per_s, p.server_utilization,
                  p.staleness_mean, knee.c_str());
    out += line;
  }
  return out;
}

}  // namespace psbench::perf
