#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "common/phase_timer.hpp"

namespace psbench::train {

/// Seconds per phase, indexed by Phase.
using PhaseSeconds = std::array<double, kPhaseCount>;

/// The seconds of every phase of a timer.
PhaseSeconds seconds_of(const PhaseTimer& timer);

/// One finished epoch over all workers.
struct EpochRecord {
  std::uint32_t epoch = 0;              ///< epoch, from 0
  std::uint64_t samples = 0;            ///< samples of all workers
  std::uint64_t steps = 0;              ///< steps of all workers
  double seconds = 0.0;                 ///< wall time from the previous epoch's end (or training start)
  double samples_per_s = 0.0;           ///< samples / seconds
  double mean_loss = 0.0;               ///< mean of the workers' step losses
  std::optional<double> utilization;    ///< busy share of rank 0's server in this epoch (async only)
  std::optional<double> test_accuracy;  ///< test accuracy after the epoch (local mode only)
};

/// Accuracy and loss of the final parameters on the test split.
struct Evaluation {
  double accuracy = 0.0;     ///< correct / samples, in [0, 1]
  double mean_loss = 0.0;    ///< mean cross-entropy
  std::int64_t samples = 0;  ///< test samples
  double seconds = 0.0;      ///< wall time of loading and evaluating
};

}  // namespace psbench::train
