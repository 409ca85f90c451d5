#include "perf/collective_forms.hpp"

#include <algorithm>

#include "perf/closed_forms.hpp"

namespace psbench::perf {

double collective_compute_s(const CollectiveCosts& costs, bool share_cores) {
  const StepCosts& base = costs.base;
  const double stretch =
      share_cores && base.cores_shared() ? static_cast<double>(base.ranks_per_node) / base.cores_per_node : 1.0;
  return base.steps_per_worker * (base.compute_s * stretch + costs.update_s) + costs.syncs * costs.sync_s();
}

Prediction predict_collective(const CollectiveCosts& costs, Kind kind, IoMode io) {
  const StepCosts& base = costs.base;
  const bool ideal = kind == Kind::kIdeal;
  Prediction p;
  p.kind = kind;
  p.workers = base.workers;
  p.servers = 0;
  p.init_io_s = ideal ? ideal_init_io(base) : revised_init_io(base, io);
  p.compute_s = collective_compute_s(costs, !ideal);
  p.total_s = base.setup_s + p.init_io_s + p.compute_s;
  p.evaluation_s = base.evaluation_s;
  p.updates_per_s = base.steps_per_worker * base.workers / p.compute_s;
  p.samples_per_s = base.training_samples / p.compute_s;
  return p;
}

}  // namespace psbench::perf
