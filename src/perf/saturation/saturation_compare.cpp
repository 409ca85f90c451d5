#include "perf/saturation/saturation_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "perf/saturation/saturation_knee.hpp"
#include "perf/saturation/saturation_sim.hpp"

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

// A point's own D, the quantity the model's D is: the server's CPU time per update where D is what an update needs
// of a core, else its clock's service time; none where the file does not carry it.
std::optional<double> point_service_s(const SaturationInputs& inputs, const results::SaturationPoint& point) {
  const std::optional<double> us = inputs.service_per_core ? point.server_cpu_us : point.service_us;
  if (!us || !(*us > 0.0)) return std::nullopt;
  return 1e-6 * *us;
}

// mva at k alone, D and D_0 both the point's own D.
double rate_given_own_service(const SaturationInputs& inputs, int clients, double service_s, TimeDistribution times) {
  SaturationInputs own = inputs;
  own.service_s = service_s;
  own.idle_service_s = service_s;
  return predict_saturation_mva(own, {clients}, times).front().updates_per_s;
}

}  // namespace

std::optional<DemandDrift> demand_drift(const results::SaturationRun& run, const SaturationInputs& inputs,
                                        TimeDistribution times) {
  if (run.points.empty()) return std::nullopt;
  DemandDrift drift{std::numeric_limits<double>::infinity(), 0.0, 0.0, 0};
  std::vector<double> predicted;
  double error_sum = 0.0;
  for (const results::SaturationPoint& point : run.points) {
    const std::optional<double> own = point_service_s(inputs, point);
    if (!own || !(point.updates_per_s > 0.0)) return std::nullopt;
    drift.low = std::min(drift.low, *own / inputs.service_s);
    drift.high = std::max(drift.high, *own / inputs.service_s);
    predicted.push_back(rate_given_own_service(inputs, point.clients, *own, times));
    error_sum += std::abs(predicted.back() - point.updates_per_s) / point.updates_per_s;
  }
  drift.mva_mape_percent = 100.0 * error_sum / static_cast<double>(run.points.size());
  drift.mva_knee_clients = saturation_knee(measured_clients(run), predicted);
  return drift;
}

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
    const SaturationKnee measured = find_saturation_knee(measured_clients(run), rates);
    c.measured_knee = measured.clients;
    c.measured_plateau = measured.plateau_updates_per_s;
    c.knee_bound = saturation_knee_bound(c.inputs);
    const std::vector<int> clients = request.clients.empty() ? measured_clients(run) : request.clients;
    for (const Kind kind : request.kinds) c.curves.push_back(predict_curve(kind, c, clients, request));
    c.drift = demand_drift(run, c.inputs, request.times);
    comparisons.push_back(std::move(c));
  }
  return comparisons;
}

}  // namespace psbench::perf
