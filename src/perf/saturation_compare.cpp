#include "perf/saturation_compare.hpp"

#include <cmath>

#include "common/error.hpp"
#include "perf/saturation_sim.hpp"

namespace psbench::perf {
namespace {

std::vector<int> measured_clients(const results::SaturationRun& run) {
  std::vector<int> clients;
  for (const auto& p : run.points) clients.push_back(p.clients);
  return clients;
}

std::optional<double> mape(const results::SaturationRun& run, const std::vector<SaturationPrediction>& points) {
  double sum = 0.0;
  int count = 0;
  for (const SaturationPrediction& p : points) {
    const std::optional<double> measured = measured_rate(run, p.clients);
    if (!measured || *measured <= 0.0) continue;
    sum += std::abs(p.updates_per_s - *measured) / *measured;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return 100.0 * sum / count;
}

SaturationCurve predict_curve(Kind kind, const SaturationComparison& c, const std::vector<int>& clients,
                              const SaturationRequest& request) {
  SaturationCurve curve;
  curve.kind = kind;
  curve.points = kind == Kind::kMva
                     ? predict_saturation_mva(c.inputs, clients, request.times)
                     : simulate_saturation(c.inputs, clients, {request.times, request.seed, request.sim_exchanges});
  std::vector<double> rates;
  for (const auto& p : curve.points) rates.push_back(p.updates_per_s);
  curve.knee_clients = saturation_knee(clients, rates);
  curve.mape_percent = mape(c.run, curve.points);
  return curve;
}

}  // namespace

std::optional<double> measured_rate(const results::SaturationRun& run, int clients) {
  for (const auto& p : run.points) {
    if (p.clients == clients) return p.updates_per_s;
  }
  return std::nullopt;
}

std::vector<SaturationComparison> compare_saturation(const results::SaturationFile& file,
                                                     const SaturationRequest& request) {
  for (const Kind kind : request.kinds) {
    if (kind != Kind::kMva && kind != Kind::kSim)
      throw UserError(std::string("the saturation model has no kind '") + kind_name(kind) + "': mva or sim");
  }
  if (file.runs.empty()) throw UserError("the server_saturation file has no runs");
  std::vector<SaturationComparison> comparisons;
  for (const results::SaturationRun& run : file.runs) {
    SaturationComparison c;
    c.run = run;
    c.inputs = saturation_inputs(run, file.context.cores, request.cpu_station);
    std::vector<double> rates;
    for (const auto& p : run.points) rates.push_back(p.updates_per_s);
    c.measured_knee = saturation_knee(measured_clients(run), rates);
    c.knee_bound = saturation_knee_bound(c.inputs);
    const std::vector<int> clients = request.clients.empty() ? measured_clients(run) : request.clients;
    for (const Kind kind : request.kinds) c.curves.push_back(predict_curve(kind, c, clients, request));
    comparisons.push_back(std::move(c));
  }
  return comparisons;
}

}  // namespace psbench::perf
