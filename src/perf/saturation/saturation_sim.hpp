#pragma once

#include <cstdint>
#include <vector>

#include "perf/saturation/saturation_model.hpp"

namespace psbench::perf {

/// Knobs of a saturation simulation.
struct SaturationSimOptions {
  TimeDistribution times = TimeDistribution::kCalibrated;  ///< D lognormal with its cv (Z, c fixed), or all exponential
  std::uint64_t seed = 1;                                  ///< seed of every draw
  double exchanges = 1000.0;                               ///< exchanges counted per point: precision against time
};

/// Simulates the benchmark's closed loop with SimGrid S4U, one forked simulation per k of clients: each client
/// pushes to every server, waits for every fresh shard, then sleeps Z; each server serves one update at a time
/// (D drawn lognormal with D's cv, or exponential). The client's overhead c is CPU work on a host of the node's
/// cores where saturation_cores_shared() holds (the servers' updates at a high share weight), otherwise on cores of
/// its own. Each point is measured over a window after a warm-up, as the benchmark does. Throws UserError for a
/// count below 1, SystemError if a simulation dies.
std::vector<SaturationPrediction> simulate_saturation(const SaturationInputs& inputs, const std::vector<int>& clients,
                                                      const SaturationSimOptions& options);

}  // namespace psbench::perf
