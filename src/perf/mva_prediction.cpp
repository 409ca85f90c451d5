#include "perf/mva_prediction.hpp"

#include <algorithm>
#include <cmath>

#include "perf/closed_forms.hpp"

namespace psbench::perf {
namespace {

constexpr int kFixedPointRounds = 60;
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
  p.evaluation_s = costs.evaluation_s;
  p.samples_per_s = costs.training_samples / p.compute_s;
  p.server_utilization = point.utilization.front();
  p.staleness_mean = staleness_estimate(costs.workers, costs.steps_per_worker) + costs.pipeline_staleness();
  p.knee_workers = knee_population(network);
  return p;
}

// A busy server shares its node's cores with the workers computing there (processor sharing): its demand
// stretches by the runnable ranks over the cores, 1 + Q_cpu + (S - 1) U, when they outnumber the cores.
double service_slowdown(const StepCosts& costs, const MvaPoint& point, double cores) {
  const double computing = point.queue_length.back();
  const double runnable = 1.0 + computing + (costs.servers - 1) * point.utilization.front();
  return std::max(1.0, runnable / cores);
}

// Solves W where ranks share cores, iterated to a fixed point: the servers' busy cores are taken out of
// the workers' pool (compute inflation m / (m - S U)), and each server's demand is stretched by its share
// of the cores (service_slowdown).
Prediction solve_shared(const StepCosts& costs, const Scenario& scenario) {
  const double cores = static_cast<double>(costs.nodes) * costs.cores_per_node;
  double inflation = 1.0;
  double slowdown = 1.0;
  for (int round = 0; round < kFixedPointRounds; ++round) {
    const ClosedNetwork network = configuration_network(costs, inflation, slowdown);
    const MvaPoint point = solve_mva_last(network, static_cast<std::size_t>(costs.workers));
    const double busy = costs.servers * point.utilization.front();
    const double next = cores / std::max(kMinFreeCores, cores - busy);
    const double next_slowdown = service_slowdown(costs, point, cores);
    const bool settled =
        std::abs(next - inflation) < kFixedPointTolerance && std::abs(next_slowdown - slowdown) < kFixedPointTolerance;
    if (settled || round + 1 == kFixedPointRounds) return from_point(costs, scenario, network, point);
    inflation = 0.5 * (inflation + next);  // damped: the two stretches feed each other
    slowdown = 0.5 * (slowdown + next_slowdown);
  }
  return {};
}

// --pipeline on unshared cores: a worker computes while its exchange travels, so only the part of its own
// work (t_fb and the copies of t_pp, which stay on its core) longer than the round trip (t_pp and the servers'
// residence at population W) is a delay of its own: Z = t_pp + max(0, t_fb + t_sw - R_trip), iterated to a
// fixed point with R_trip from the solved network. On shared cores the compute is a station and stays whole:
// hiding a wait frees no core.
Prediction solve_pipelined(const StepCosts& costs, const Scenario& scenario) {
  StepCosts overlapped = costs;
  for (int round = 0; round < kFixedPointRounds; ++round) {
    const ClosedNetwork network = configuration_network(overlapped, 1.0, 1.0);
    const MvaPoint point = solve_mva_last(network, static_cast<std::size_t>(costs.workers));
    const double trip = network.think - overlapped.compute_s + point.response;
    const double next = std::max(0.0, costs.compute_s + costs.exchange_software_s - trip);
    if (std::abs(next - overlapped.compute_s) < kFixedPointTolerance * costs.compute_s ||
        round + 1 == kFixedPointRounds) {
      return from_point(overlapped, scenario, network, point);
    }
    overlapped.compute_s = 0.5 * (overlapped.compute_s + next);  // damped: the trip grows as the delay shrinks
  }
  return {};
}

}  // namespace

ClosedNetwork configuration_network(const StepCosts& costs, double cpu_inflation, double service_inflation,
                                    ShardModel shards) {
  ClosedNetwork network;
  const double demand = costs.server_demand_s();  // on a network, D_s plus the shard's transfers it waits for
  network.think = std::max(0.0, costs.exchange_s - (demand - costs.service_s));
  const int queues = shards == ShardModel::kLockstep ? 1 : costs.servers;
  for (int s = 0; s < queues; ++s) network.stations.push_back({demand * service_inflation, 1});
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
    unshared = configuration_network(step_costs(calibration, scenario, largest_unshared, servers), 1.0, 1.0);
    curve = solve_mva(unshared, static_cast<std::size_t>(largest_unshared));
  }
  std::vector<Prediction> predictions;
  for (const int w : workers) {
    const StepCosts costs = step_costs(calibration, scenario, w, servers);
    if (costs.cores_shared()) {
      predictions.push_back(solve_shared(costs, scenario));
    } else if (costs.pipeline) {
      predictions.push_back(solve_pipelined(costs, scenario));
    } else {
      predictions.push_back(from_point(costs, scenario, unshared, curve[static_cast<std::size_t>(w - 1)]));
    }
  }
  return predictions;
}

}  // namespace psbench::perf
