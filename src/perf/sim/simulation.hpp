#pragma once

#include <cstdint>

#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// Where the simulated compute and service times come from.
enum class TimeDistribution {
  kCalibrated,   ///< lognormal with the calibrated mean and coefficient of variation (fixed when cv = 0)
  kExponential,  ///< exponential with the calibrated mean (the MVA's product-form assumption)
};

/// How the simulation shares a host's cores among its ranks (the same weighted sharing either way).
enum class CpuModel {
  kSharedCpu,   ///< perf::SharedCpu where a host holds more ranks than cores: O(log n) per event
  kSimGridCpu,  ///< SimGrid's own CPU model everywhere: O(n) per event, the reference SharedCpu is tested against
};

/// Knobs of one simulation.
struct SimOptions {
  TimeDistribution times = TimeDistribution::kCalibrated;  ///< distribution of t_fb and D_s
  std::uint64_t seed = 1;                                  ///< seed of every draw and of the placement
  int server_priority = 1000;           ///< CPU share weight of a server's update against a worker's compute
  CpuModel cpu = CpuModel::kSharedCpu;  ///< who shares crowded hosts' cores
};

/// Simulates W workers and S servers with SimGrid S4U: workers load their data (one after another with
/// the sequential loader's token, or all at once), meet at a barrier, then each step compute, push a shard
/// to every server and pull every fresh shard; each server applies one update at a time. The platform's
/// cores, links and disk are SimGrid's. Runs in a forked child, because SimGrid 3.32's Engine is a
/// process-wide singleton that cannot be re-created cleanly; throws SystemError if the child fails.
Prediction simulate(const StepCosts& costs, const Scenario& scenario, const SimOptions& options);

}  // namespace psbench::perf
