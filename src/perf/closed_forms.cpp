#include "perf/closed_forms.hpp"

#include <algorithm>

namespace psbench::perf {
namespace {

Prediction from_cycle(Kind kind, const StepCosts& costs, double init_io_s, double compute_s) {
  Prediction p;
  p.kind = kind;
  p.workers = costs.workers;
  p.servers = costs.servers;
  p.init_io_s = init_io_s;
  p.compute_s = compute_s;
  p.total_s = costs.setup_s + init_io_s + compute_s;
  p.evaluation_s = costs.evaluation_s;
  const double updates = costs.steps_per_worker * costs.workers;
  p.updates_per_s = updates / compute_s;
  p.samples_per_s = costs.training_samples / compute_s;
  p.server_utilization = std::min(1.0, p.updates_per_s * costs.server_demand_s());
  p.staleness_mean = staleness_estimate(costs.workers, costs.steps_per_worker) + costs.pipeline_staleness();
  return p;
}

}  // namespace

double ideal_init_io(const StepCosts& costs) {
  return costs.read_open_s + costs.read_bytes / costs.disk_sequential_Bps;
}

double revised_init_io(const StepCosts& costs, IoMode io) {
  const double one = costs.read_bytes / costs.disk_sequential_Bps;
  const bool fresh = costs.read_later_s > 0.0;
  const int node_workers = std::max(1, costs.node_workers());
  if (io == IoMode::kSequential) {
    if (!fresh) return costs.workers * (costs.read_open_s + one);
    const int firsts = (costs.workers + node_workers - 1) / node_workers;
    return firsts * (costs.read_open_s + one) + (costs.workers - firsts) * costs.read_later_s;
  }
  const double shared = costs.workers * costs.read_bytes / costs.disk_parallel_Bps;
  const double disk = costs.read_open_s + std::max(one, shared);
  if (!fresh) return disk;
  const double pages = costs.read_open_s + one + (node_workers - 1) * costs.read_later_s;  // clearing is CPU work
  return std::max(disk, pages / std::min(node_workers, costs.cores_per_node));
}

Prediction predict_ideal(const StepCosts& costs) {
  // t_pp holds the transfers on a network already; the server's link enters as its demand (server_demand_s).
  const double cycle = costs.unloaded_cycle_s();
  return from_cycle(Kind::kIdeal, costs, ideal_init_io(costs), costs.steps_per_worker * cycle);
}

Prediction predict_revised(const StepCosts& costs, IoMode io) {
  const double updates = costs.steps_per_worker * costs.workers;
  double compute = costs.steps_per_worker * costs.unloaded_cycle_s();
  compute = std::max(compute, updates * costs.server_demand_s());
  if (costs.cores_shared()) {
    const double cores = static_cast<double>(costs.nodes) * costs.cores_per_node;
    compute = std::max(compute, updates * (costs.compute_s + costs.servers * costs.service_s) / cores);
  }
  Prediction p = from_cycle(Kind::kRevised, costs, revised_init_io(costs, io), compute);
  const double d_max = costs.server_demand_s();
  if (d_max > 0.0) p.knee_workers = costs.unloaded_cycle_s() / d_max;
  return p;
}

double staleness_estimate(int workers, double steps_per_worker) {
  if (workers <= 1 || steps_per_worker < 1.0) return 0.0;
  return (workers - 1.0) * (1.0 - 1.0 / (2.0 * steps_per_worker));
}

}  // namespace psbench::perf
