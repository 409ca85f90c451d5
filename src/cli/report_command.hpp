#pragma once

#include <CLI/CLI.hpp>

namespace psbench::cli {

/// Registers `psbench report SWEEP_DIR [--bench DIR] [--calib FILE] [--platform P] --out DIR`, which runs the
/// Python module psbench_report shipped with psbench (src/report) with python3, on rank 0.
void add_report_command(CLI::App& app);

}  // namespace psbench::cli
