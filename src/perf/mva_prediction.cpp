#include "perf/mva_prediction.hpp"

#include <algorithm>
#include <cmath>

#include "perf/closed_forms.hpp"

namespace psbench::perf {
namespace {

constexpr int kFixedPointRounds = 30;
constexpr double kFixedPointTolerance = 1e-6;
constexpr double kMinFreeCores = 0.25;  // the servers never take all the workers' cores

Prediction from_point(const StepCosts& costs, const Scenario& scenario, const ClosedNetwork& network,
                      const MvaPoint& point) {
  Prediction p;
  p.kind = Kind::kMva;
  p.workers = costs.workers;
  p.servers = costs.servers;
  p.init_io_s = revised_init_io(costs, scenario.io);
  p.updates_per_s = point.throughput;
  p.compute_s = costs.steps_per_worker * costs.workers / point.throughput;
  p.total_s = costs.setup_s + p.init_io_s + p.compute_s;
  p.samples_per_s = costs.training_samples / p.compute_s;
  p.server_utilization = point.utilization.front();
  const double cycle = costs.workers / point.throughput;
  double server_residence = point.residence.front();
  if (costs.link_s > 0.0) server_residence += point.residence[1] + point.residence[2];
  p.staleness_mean = staleness_estimate(costs.workers, cycle, server_residence, costs.service_s);
  p.knee_workers = knee_population(network);
  return p;
}

// Solves W with the servers' cores taken out of the pool: inflation = m / (m - S U), iterated to a fixed point.
Prediction solve_shared(const StepCosts& costs, const Scenario& scenario) {
  const double cores = static_cast<double>(costs.nodes) * costs.cores_per_node;
  double inflation = 1.0;
  for (int round = 0; round < kFixedPointRounds; ++round) {
    const ClosedNetwork network = configuration_network(costs, inflation);
    const MvaPoint point = solve_mva(network, static_cast<std::size_t>(costs.workers)).back();
    const double busy = costs.servers * point.utilization.front();
    const double next = cores / std::max(kMinFreeCores, cores - busy);
    if (std::abs(next - inflation) < kFixedPointTolerance || round + 1 == kFixedPointRounds)
      return from_point(costs, scenario, network, point);
    inflation = next;
  }
  return {};
}

}  // namespace

ClosedNetwork configuration_network(const StepCosts& costs, double cpu_inflation, ShardModel shards) {
  ClosedNetwork network;
  network.think = costs.exchange_s;
  const int queues = shards == ShardModel::kLockstep ? 1 : costs.servers;
  for (int s = 0; s < queues; ++s) network.stations.push_back({costs.service_s, 1});
  if (costs.link_s > 0.0) {
    for (int s = 0; s < 2 * queues; ++s) network.stations.push_back({costs.link_s, 1});
  }
  if (costs.cores_shared()) {
    network.stations.push_back({costs.compute_s * cpu_inflation, costs.nodes * costs.cores_per_node});
  } else {
    network.think += costs.compute_s;
  }
  return network;
}

std::vector<Prediction> predict_mva(const Calibration& calibration, const Scenario& scenario,
                                    const std::vector<int>& workers, int servers) {
  int largest_unshared = 0;
  for (const int w : workers) {
    if (!step_costs(calibration, scenario, w, servers).cores_shared()) largest_unshared = std::max(largest_unshared, w);
  }
  std::vector<MvaPoint> curve;
  ClosedNetwork unshared;
  if (largest_unshared > 0) {
    unshared = configuration_network(step_costs(calibration, scenario, largest_unshared, servers), 1.0);
    curve = solve_mva(unshared, static_cast<std::size_t>(largest_unshared));
  }
  std::vector<Prediction> predictions;
  for (const int w : workers) {
    const StepCosts costs = step_costs(calibration, scenario, w, servers);
    if (costs.cores_shared()) {
      predictions.push_back(solve_shared(costs, scenario));
    } else {
      predictions.push_back(from_point(costs, scenario, unshared, curve[static_cast<std::size_t>(w - 1)]));
    }
  }
  return predictions;
}

}  // namespace psbench::perf
