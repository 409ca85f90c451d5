#pragma once

#include "perf/calibration.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// Update fits a block update costs: BMUF's delta, block momentum step and velocity reset stream about twice the
/// SGD update's bytes per value; averaging's scaling and copy about once (src/train/exchange/block_update.*).
inline constexpr double kBmufBlockUpdates = 2.0;
/// See kBmufBlockUpdates.
inline constexpr double kAverageBlockUpdates = 1.0;

/// The costs of W workers that combine their work by collectives (sync, bmuf, average): local steps, and per
/// synchronisation an exchange and a block update.
struct CollectiveCosts {
  StepCosts base;               ///< placement, t_fb, steps, start-up and set-up (no servers: S = 0)
  double update_s = 0.0;        ///< the worker's own SGD update of 4P, every step
  double syncs = 0.0;           ///< synchronisations of the busiest worker: every step (sync), or every block
  double bytes_per_sync = 0.0;  ///< bytes each rank sends (and receives) per synchronisation
  double transfer_s = 0.0;      ///< those bytes through MPI per synchronisation
  double codec_s = 0.0;         ///< 1-bit sync: quantize, dequantize and sum, re-quantize, dequantize, per step
  double block_update_s = 0.0;  ///< bmuf, average: the block update per synchronisation
  /// One synchronisation: the transfer, the 1-bit codec and the block update.
  [[nodiscard]] double sync_s() const { return transfer_s + codec_s + block_update_s; }
};

/// Seconds of `collectives` collectives in which each of workers ranks sends bytes_per_rank in all: on `this` and an
/// XML platform the allreduce benchmark's fit at those bytes; on a rack or a torus its fixed cost, 2 (W - 1) link
/// latencies (a ring's steps, or an all-to-all's and an all-gather's) and the bytes through one link (a ring in rank
/// order crosses each node's link once each way). Each collective beyond the first adds the fit's fixed cost.
double collective_transfer_s(const Calibration& calibration, const PlatformSpec& platform, double bytes_per_rank,
                             int workers, int collectives = 1);

/// Derives the costs of W workers for scenario.learner (sync, bmuf or average). Throws UserError as step_costs
/// does, for a block learner without block_samples, or a calibration without a fit the learner needs.
CollectiveCosts collective_costs(const Calibration& calibration, const Scenario& scenario, int workers);

}  // namespace psbench::perf
