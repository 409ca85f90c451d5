#pragma once

#include <cstdint>
#include <string>

#include "nn/model.hpp"
#include "ps/protocol.hpp"
#include "ps/server.hpp"
#include "ps/shard_layout.hpp"
#include "train/checkpoint/checkpoint_schedule.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/run_setup.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// What a rank's checkpoints cost, for its console line.
struct CheckpointTally {
  std::uint64_t written = 0;  ///< checkpoints written
  std::uint64_t skipped = 0;  ///< due while the run was stopping (a worker diverged): not written
  double seconds = 0.0;       ///< time spent writing them
};

/// A server's checkpoints in async mode: counts every gradient push it answers and, when one is due, writes
/// its shard, its velocity and counters and (server 0) every worker's position, together with the other
/// servers, collectively over their communicator (setup.workers on a server).
class ServerCheckpoints {
 public:
  /// For server, which serves shard topology.rank of layout; nothing is written without --checkpoint.
  ServerCheckpoints(const TrainOptions& options, const RunSetup& setup, const ps::ShardLayout& layout,
                    const ps::Server& server);
  /// Called after each answered gradient push from world rank source (Server::set_push_observer).
  void on_push(int source, const ps::PushHeader& header);
  /// The checkpoints so far.
  [[nodiscard]] const CheckpointTally& tally() const { return tally_; }

 private:
  const TrainOptions& options_;
  const RunSetup& setup_;
  const ps::Server& server_;
  CheckpointSchedule schedule_;
  std::uint64_t begin_;
  std::uint64_t counts_before_;  // this shard's version and updates in the run resumed from
  CheckpointTally tally_;
};

/// Checkpoints of a sync or local run, written by the first worker alone (the workers' parameters and
/// velocities are identical): called after every step, it writes when one is due.
class ReplicaCheckpoints {
 public:
  /// For the worker holding model and exchange; nothing is written without --checkpoint.
  ReplicaCheckpoints(const TrainOptions& options, const RunSetup& setup, nn::Model& model,
                     const GradientExchange& exchange);
  /// Called after step (of steps_in_epoch) has finished on every worker.
  void after_step(const StepInfo& step, std::size_t steps_in_epoch);
  /// The checkpoints so far.
  [[nodiscard]] const CheckpointTally& tally() const { return tally_; }

 private:
  const TrainOptions& options_;
  const RunSetup& setup_;
  nn::Model& model_;
  const GradientExchange& exchange_;
  CheckpointSchedule schedule_;
  CheckpointTally tally_;
};

/// The console line of a rank's checkpoints ("checkpoints: 3 written to F in 0.02 s"), or "" for none.
std::string checkpoint_line(const TrainOptions& options, const CheckpointTally& tally);

}  // namespace psbench::train
