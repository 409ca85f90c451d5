#pragma once

#include <CLI/CLI.hpp>

namespace psbench::cli {

/// Registers `psbench model` with its subcommands calibrate (fit calib.json from benchmark and run
/// files), predict (ideal, revised, mva and sim kinds at any scale) and validate (predicted against
/// measured runs, MAPE per kind). Rank 0 does the work; they need no MPI job.
void add_model_command(CLI::App& app);

}  // namespace psbench::cli
