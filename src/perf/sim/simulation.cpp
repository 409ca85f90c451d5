#include "perf/sim/simulation.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "perf/closed_forms.hpp"
#include "perf/forked_run.hpp"
#include "perf/sim/sim_run.hpp"

namespace psbench::perf {
namespace {

// One simulation in a forked child (SimGrid's Engine is a process-wide singleton), its measures sent back.
SimMeasures run_in_child(const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  const std::vector<double> v = run_forked(
      [&] {
        const SimMeasures m = run_simulation(costs, scenario, options);
        return std::vector<double>{m.init_io_s,     m.compute_s,     m.updates,
                                   m.server_busy_s, m.staleness_sum, m.shard_updates};
      },
      "the SimGrid simulation of " + std::to_string(costs.workers) + " workers");
  return {v.at(0), v.at(1), v.at(2), v.at(3), v.at(4), v.at(5)};
}

}  // namespace

Prediction simulate(const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  const SimMeasures m = run_in_child(costs, scenario, options);
  Prediction p;
  p.kind = Kind::kSim;
  p.workers = costs.workers;
  p.servers = costs.servers;
  p.init_io_s = m.init_io_s;
  p.compute_s = m.compute_s;
  p.total_s = costs.setup_s + m.init_io_s + m.compute_s;
  p.evaluation_s = costs.evaluation_s;
  p.updates_per_s = m.compute_s > 0.0 ? m.updates / m.compute_s : 0.0;
  p.samples_per_s = m.compute_s > 0.0 ? costs.training_samples / m.compute_s : 0.0;
  p.server_utilization = m.compute_s > 0.0 ? m.server_busy_s / (m.compute_s * costs.servers) : 0.0;
  p.staleness_mean = m.shard_updates > 0.0 ? m.staleness_sum / m.shard_updates : 0.0;
  const double demand = costs.server_demand_s();
  if (demand > 0.0) p.knee_workers = (costs.compute_s + costs.exchange_s + costs.service_s) / demand;
  return p;
}

}  // namespace psbench::perf
