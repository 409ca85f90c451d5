#include "perf/saturation/saturation_format.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace psbench::perf {
namespace {

using Ordered = nlohmann::ordered_json;

Ordered optional_number(const std::optional<double>& value) { return value ? Ordered(*value) : Ordered(nullptr); }

std::optional<double> error_percent(const results::SaturationRun& run, const SaturationPrediction& p) {
  const std::optional<double> measured = measured_rate(run, p.clients);
  if (!measured || *measured <= 0.0) return std::nullopt;
  return 100.0 * (p.updates_per_s - *measured) / *measured;
}

Ordered inputs_json(const SaturationComparison& c) {
  const SaturationInputs& in = c.inputs;
  return {{"servers", in.servers},
          {"parameters", in.parameters},
          {"think_us", 1e6 * in.think_s},
          {"service_us", 1e6 * in.service_s},
          {"idle_service_us", 1e6 * service_after_idle_s(in)},
          {"service_cv", in.service_cv},
          {"overhead_us", 1e6 * in.overhead_s},
          {"cores", in.cores},
          {"cpu_station", in.cpu_station},
          {"preemption", in.preemption}};
}

Ordered curve_json(const SaturationComparison& c, const SaturationCurve& curve) {
  Ordered points = Ordered::array();
  for (const SaturationPrediction& p : curve.points) {
    points.push_back({{"clients", p.clients},
                      {"updates_per_s", p.updates_per_s},
                      {"utilization", p.utilization},
                      {"response_us", 1e6 * p.response_s},
                      {"queue_length", p.queue_length},
                      {"error_percent", optional_number(error_percent(c.run, p))}});
  }
  return {{"kind", kind_name(curve.kind)},
          {"knee_clients", curve.knee_clients},
          {"mape_percent", optional_number(curve.mape_percent)},
          {"points", points}};
}

Ordered run_json(const SaturationComparison& c) {
  Ordered measured = Ordered::array();
  for (const auto& p : c.run.points) measured.push_back({{"clients", p.clients}, {"updates_per_s", p.updates_per_s}});
  Ordered curves = Ordered::array();
  for (const SaturationCurve& curve : c.curves) curves.push_back(curve_json(c, curve));
  Ordered drift = nullptr;
  if (c.drift)
    drift = {{"low", c.drift->low},
             {"high", c.drift->high},
             {"mva_mape_percent", c.drift->mva_mape_percent},
             {"mva_knee_clients", c.drift->mva_knee_clients}};
  return {{"inputs", inputs_json(c)},
          {"knee_bound", c.knee_bound},
          {"measured",
           {{"knee_clients", c.measured_knee}, {"plateau_updates_per_s", c.measured_plateau}, {"points", measured}}},
          {"curves", curves},
          {"demand_drift", drift}};
}

std::string number_or(const std::optional<double>& value, const char* format, const char* missing = "-") {
  if (!value) return missing;
  char text[32];
  std::snprintf(text, sizeof text, format, *value);
  return text;
}

// The summary's own-D cells: the points' own D over the model's (low-high), mva's MAPE and knee given each
// point's own D; dashes where the run has none.
std::string drift_cells(const SaturationComparison& c) {
  char text[96];
  if (!c.drift) {
    std::snprintf(text, sizeof text, " %11s %11s %10s", "-", "-", "-");
    return text;
  }
  char range[40];
  std::snprintf(range, sizeof range, "%.2f-%.2f", c.drift->low, c.drift->high);
  std::snprintf(text, sizeof text, " %11s %11.1f %10d", range, c.drift->mva_mape_percent, c.drift->mva_knee_clients);
  return text;
}

std::string run_heading(const SaturationComparison& c) {
  const SaturationInputs& in = c.inputs;
  char probe[64] = "";
  if (c.run.busy_clients) std::snprintf(probe, sizeof probe, " by %d clients", *c.run.busy_clients);
  char preemption[96] = "";
  if (in.preemption > 0.0) {
    std::snprintf(preemption, sizeof preemption, ", preemption p = %.2f at %.0f updates/s", in.preemption,
                  in.preemption_updates_per_s);
  }
  char line[480];
  std::snprintf(line, sizeof line,
                "S = %d, P = %llu, Z = %.0f us, D = %.0f us kept busy%s, D_0 = %.0f us after idling (cv %.2f), "
                "client overhead c = %.0f us, %d cores%s%s\n",
                in.servers, static_cast<unsigned long long>(in.parameters), 1e6 * in.think_s, 1e6 * in.service_s, probe,
                1e6 * service_after_idle_s(in), in.service_cv, 1e6 * in.overhead_s, in.cores,
                in.cpu_station ? "" : " (not modelled: --cpu off)", preemption);
  return line;
}

std::string run_rows(const SaturationComparison& c) {
  std::string out = "  clients     measured";
  for (const SaturationCurve& curve : c.curves) out += std::string("  ") + kind_name(curve.kind) + " updates/s  err%";
  out += "\n";
  for (std::size_t i = 0; i < c.curves.front().points.size(); ++i) {
    const int k = c.curves.front().points[i].clients;
    char cell[64];
    std::snprintf(cell, sizeof cell, "  %7d %12s", k, number_or(measured_rate(c.run, k), "%.1f").c_str());
    out += cell;
    for (const SaturationCurve& curve : c.curves) {
      const SaturationPrediction& p = curve.points[i];
      std::snprintf(cell, sizeof cell, " %15.1f %6s", p.updates_per_s,
                    number_or(error_percent(c.run, p), "%+.1f").c_str());
      out += cell;
    }
    out += "\n";
  }
  return out;
}

std::string run_footer(const SaturationComparison& c) {
  char line[256];
  std::string out;
  for (const SaturationCurve& curve : c.curves) {
    std::snprintf(line, sizeof line, "  %s: MAPE %s%%, knee %d clients (measured %d)\n", kind_name(curve.kind),
                  number_or(curve.mape_percent, "%.1f").c_str(), curve.knee_clients, c.measured_knee);
    out += line;
  }
  std::snprintf(line, sizeof line, "  N* = (Z + c + D) / D = %.2f\n", c.knee_bound);
  out += line;
  if (c.drift) {
    std::snprintf(line, sizeof line,
                  "  the points' own D: %.2f-%.2f x D; mva given each point's own D: MAPE %.1f%%, knee %d clients\n",
                  c.drift->low, c.drift->high, c.drift->mva_mape_percent, c.drift->mva_knee_clients);
    out += line;
  }
  return out;
}

}  // namespace

std::string format_saturation_json(const std::string& bench_path, const SaturationRequest& request,
                                   const std::vector<SaturationComparison>& comparisons) {
  Ordered kinds = Ordered::array();
  for (const Kind kind : request.kinds) kinds.push_back(kind_name(kind));
  Ordered runs = Ordered::array();
  for (const SaturationComparison& c : comparisons) runs.push_back(run_json(c));
  const char* times = request.times == TimeDistribution::kExponential ? "exponential" : "measured";
  return Ordered{{"format", 1}, {"bench", bench_path}, {"times", times}, {"kinds", kinds}, {"runs", runs}}.dump(2) +
         "\n";
}

std::string format_saturation_csv(const std::vector<SaturationComparison>& comparisons) {
  std::string out =
      "kind,servers,parameters,think_us,service_us,idle_service_us,clients,updates_per_s,utilization,response_us,"
      "queue_length,measured_updates_per_s,error_percent\n";
  for (const SaturationComparison& c : comparisons) {
    for (const SaturationCurve& curve : c.curves) {
      for (const SaturationPrediction& p : curve.points) {
        char line[512];
        std::snprintf(line, sizeof line, "%s,%d,%llu,%.6g,%.6g,%.6g,%d,%.9g,%.6g,%.9g,%.6g,%s,%s\n",
                      kind_name(curve.kind), c.inputs.servers, static_cast<unsigned long long>(c.inputs.parameters),
                      1e6 * c.inputs.think_s, 1e6 * c.inputs.service_s, 1e6 * service_after_idle_s(c.inputs), p.clients,
                      p.updates_per_s, p.utilization, 1e6 * p.response_s, p.queue_length,
                      number_or(measured_rate(c.run, p.clients), "%.9g", "").c_str(),
                      number_or(error_percent(c.run, p), "%.6g", "").c_str());
        out += line;
      }
    }
  }
  return out;
}

std::string format_saturation_table(const std::vector<SaturationComparison>& comparisons) {
  std::string out;
  for (const SaturationComparison& c : comparisons) out += run_heading(c) + run_rows(c) + run_footer(c) + "\n";
  out +=
      "summary (MAPE of updates/s over the measured k; knee: first k within 10% of the plateau; own D / D: the\n"
      "points' own service demand over the model's D, low-high; own-D MAPE and knee: mva given each point's own D)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-5s %3s %9s %10s %8s %8s %13s %11s %11s %11s %10s\n", "kind", "S", "P", "Z_us",
                "D_us", "MAPE%", "knee measured", "knee model", "own D / D", "own-D MAPE%", "own-D knee");
  out += line;
  for (const SaturationComparison& c : comparisons) {
    for (const SaturationCurve& curve : c.curves) {
      std::snprintf(line, sizeof line, "%-5s %3d %9llu %10.0f %8.0f %8s %13d %11d", kind_name(curve.kind),
                    c.inputs.servers, static_cast<unsigned long long>(c.inputs.parameters), 1e6 * c.inputs.think_s,
                    1e6 * c.inputs.service_s, number_or(curve.mape_percent, "%.1f").c_str(), c.measured_knee,
                    curve.knee_clients);
      out += line + drift_cells(c) + "\n";
    }
  }
  return out;
}

}  // namespace psbench::perf
