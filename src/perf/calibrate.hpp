#pragma once

#include <string>
#include <vector>

#include "perf/calibration.hpp"

namespace psbench::perf {

/// Fits a calibration from benchmark files (docs/formats.md#bench-file: nn.json, push_pull.json, server_update.json,
/// data_io.json, server_saturation.json, train_setup*.json, recognised by their benchmark names; trainer_limit.json,
/// which has nothing to fit, is passed over, so a whole bench/run_all.sh folder can be given) and, optionally,
/// results files of `psbench train` runs, which override the benchmarks where they measure the same thing on psbench's
/// own code path (see docs/model.md). Throws UserError naming the file for a missing or malformed file, or
/// when no file gives a compute time, an update time or a disk bandwidth.
Calibration calibrate(const std::vector<std::string>& bench_files, const std::vector<std::string>& run_files);

}  // namespace psbench::perf
