#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/checkpoint/checkpoint_file.hpp"

namespace psbench::train {

/// --checkpoint-every: after every `steps` steps, or (steps 0) whenever every worker has finished an epoch.
struct CheckpointEvery {
  std::uint64_t steps = 0;  ///< async: gradient pushes a server received (all workers' steps together);
                            ///< sync and local: steps of each worker; 0: at the end of every epoch
  /// Member-wise equality.
  bool operator==(const CheckpointEvery&) const = default;
};

/// Parses "epoch" or a positive whole number of steps; throws UserError naming the flag.
CheckpointEvery parse_checkpoint_every(const std::string& text);
/// The flag spelling of every ("epoch" or the number).
std::string checkpoint_every_text(const CheckpointEvery& every);

/// When a checkpoint is due, from the steps as they happen, and where every worker then stands. A server
/// records each gradient push it receives (applied or, once the run is stopping, refused); a sync or local
/// worker records each of its steps for all workers at once (they step together).
class CheckpointSchedule {
 public:
  /// Starts at positions (one per worker), after steps_before steps (those of the run resumed from).
  CheckpointSchedule(CheckpointEvery every, std::vector<WorkerPosition> positions, std::uint64_t steps_before);
  /// Records worker's step of epoch (last: the last of its epoch); true when a checkpoint is due after it.
  bool record(std::size_t worker, std::uint32_t epoch, bool last_of_epoch);
  /// Records one step of every worker (sync and local mode); true when a checkpoint is due after it.
  bool record_all(std::uint32_t epoch, bool last_of_epoch);
  /// Every worker's next step.
  [[nodiscard]] const std::vector<WorkerPosition>& positions() const { return positions_; }
  /// Steps so far, including steps_before.
  [[nodiscard]] std::uint64_t steps() const { return steps_; }
  /// Epochs that every worker has finished.
  [[nodiscard]] std::uint32_t finished_epochs() const { return finished_epochs_; }

 private:
  void advance(std::size_t worker, std::uint32_t epoch, bool last_of_epoch);
  [[nodiscard]] std::uint32_t slowest_epoch() const;

  CheckpointEvery every_;
  std::vector<WorkerPosition> positions_;
  std::uint64_t steps_;
  std::uint32_t finished_epochs_;
};

}  // namespace psbench::train
