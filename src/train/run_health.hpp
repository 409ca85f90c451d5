#pragma once

#include <optional>
#include <string>

#include "mpi/communicator.hpp"
#include "train/train_options.hpp"
#include "train/worker_trainer.hpp"

namespace psbench::train {

/// The one error line of a run that stopped at stop on world rank `rank` (worker index `worker`): what became
/// non-finite, where, and which flags to try.
std::string stop_message(const StopPoint& stop, int rank, int worker, const TrainOptions& options);

/// Collective over world, once after training: if any worker's own loss became non-finite (diverged set),
/// every rank throws CollectiveUserError with the lowest such rank's message; failing that, if any worker
/// stopped for another reason (stopped set), with the lowest such rank's. Otherwise returns.
void stop_if_any_rank_stopped(const mpi::Communicator& world, const std::optional<std::string>& diverged,
                              const std::optional<std::string>& stopped);

/// A warning when the final training loss, or else the final parameters' test loss, lies within 2% of
/// ln(classes), the loss of a uniform guess: the model did not learn. Empty otherwise.
std::optional<std::string> chance_level_warning(double final_loss, double test_loss, int classes,
                                                const TrainOptions& options);

}  // namespace psbench::train
