#pragma once

#include <vector>

#include "common/phase_timer.hpp"
#include "mpi/communicator.hpp"
#include "train/console.hpp"
#include "train/rank_report.hpp"
#include "train/run_setup.hpp"
#include "train/trace_recorder.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// Where a role prints and records: the console, the trace, the phase timer and rank 0's epoch lines.
struct RoleContext {
  const mpi::Communicator& world;         ///< the job's communicator
  const TrainOptions& options;            ///< every flag
  PhaseTimer& timer;                      ///< this rank's phase times
  TraceRecorder& trace;                   ///< this rank's trace slices
  Console& console;                       ///< rank 0's console (silent elsewhere)
  std::vector<EpochRecord>& live_epochs;  ///< epoch lines as printed (filled where the console prints)
};

/// Tag of the servers' final shards on their way to the evaluating worker (the ps protocol uses 101-104).
inline constexpr int kTagFinalShard = 201;

/// Serves one shard until every worker is done (async mode) and keeps a copy of the final shard for the
/// first worker, which evaluates (the driver sends it, tag kTagFinalShard, once every rank knows the run
/// did not diverge). The service time is Phase::kServerUpdate, the waiting Phase::kServerIdle. Rank 0
/// prints an epoch line whenever all workers finish an epoch.
ServerReport run_server(const RoleContext& context, RunSetup& setup);

/// Trains this worker's partition for every epoch in the chosen mode and says done at the end; a
/// non-finite loss (its own or, through the exchange, another rank's) ends training early with the
/// report's diverged or stopped line set.
WorkerReport run_worker(const RoleContext& context, RunSetup& setup);

}  // namespace psbench::train
