#pragma once

#include <CLI/CLI.hpp>

namespace psbench::cli {

/// Registers `psbench train`: trains a model in async (parameter server), sync (allreduce) or local mode
/// and writes a results file; its callback runs the training on every rank of MPI_COMM_WORLD.
void add_train_command(CLI::App& app);

}  // namespace psbench::cli
