#pragma once

#include <optional>
#include <string>

#include "mpi/communicator.hpp"
#include "train/checkpoint/checkpoint_file.hpp"
#include "train/checkpoint/resume_state.hpp"
#include "train/run_setup.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// The header of the checkpoints this run writes (epoch and step 0: the writer fills them in).
CheckpointHeader checkpoint_header_for(const TrainOptions& options, const RunSetup& setup);

/// Throws UserError naming path unless checkpoint can continue the run that expected describes: the same
/// model, data shape, mode, worker count, batch and seed, and an epoch left to train. Another server count
/// is accepted: the file holds the whole vector, which the servers split anew.
void check_resumable(const Checkpoint& checkpoint, const CheckpointHeader& expected, int epochs,
                     const std::string& path);

/// Collective over world, during set-up once setup.model exists: with --resume, the rank reader (the first
/// worker) reads and checks the checkpoint and puts its parameters into its model (set-up then broadcasts
/// them as the initial ones), and every rank gets the rest. Bad input throws CollectiveUserError everywhere.
std::optional<ResumeState> share_resume(const mpi::Communicator& world, const TrainOptions& options,
                                        const RunSetup& setup, int reader);

}  // namespace psbench::train
