#pragma once

#include "perf/sim/simulation.hpp"

namespace psbench::perf {

/// What one simulation measured (plain numbers: it crosses a pipe from the child).
struct SimMeasures {
  double init_io_s = 0.0;      ///< the last worker's end of loading
  double compute_s = 0.0;      ///< from the barrier to the last worker's last step
  double updates = 0.0;        ///< full pushes
  double server_busy_s = 0.0;  ///< from each push's take to its reply sent, summed over servers
  double staleness_sum = 0.0;  ///< over every shard update
  double shard_updates = 0.0;  ///< shard updates applied (updates x S)
};

/// Runs one simulation in this process (creates the SimGrid Engine: call it once per process).
SimMeasures run_simulation(const StepCosts& costs, const Scenario& scenario, const SimOptions& options);

}  // namespace psbench::perf
