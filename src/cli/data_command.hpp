#pragma once

#include <CLI/CLI.hpp>

namespace psbench::cli {

/// Registers `psbench data` with its subcommands convert (Fashion-MNIST IDX to HDF5), synth (a synthetic
/// set of any size), inspect (describe and validate a file) and load (run the loader on every rank).
void add_data_command(CLI::App& app);

}  // namespace psbench::cli
