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

/// Serves one shard until every worker is done (async mode), then sends the final shard to the first
/// worker, which evaluates. The service time is Phase::kServerUpdate, the waiting
/// Phase::kServerIdle. Rank 0 prints an epoch line whenever all workers finish an epoch.
ServerReport run_server(const RoleContext& context, RunSetup& setup);

/// Trains this worker's partition for every epoch in the chosen mode and says done at the end; a
/// non-finite loss (its own or, through the exchange, another rank's) ends training early with the
/// report's diverged or stopped line set.
WorkerReport run_worker(const RoleContext& context, RunSetup& setup);

}  // namespace psbench::train
