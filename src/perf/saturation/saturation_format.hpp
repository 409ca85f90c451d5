#pragma once

#include <string>
#include <vector>

#include "perf/prediction_format.hpp"
#include "perf/saturation/saturation_compare.hpp"

namespace psbench::perf {

/// The comparisons as JSON (docs/model.md, "Saturation curve"): format, the file, the times, and per run its
/// inputs, measured knee, plateau and points, and per kind its curve, knee and MAPE.
std::string format_saturation_json(const std::string& bench_path, const SaturationRequest& request,
                                   const std::vector<SaturationComparison>& comparisons);

/// One header line, then one line per (run, kind, k) with the measured updates/s beside the predicted.
std::string format_saturation_csv(const std::vector<SaturationComparison>& comparisons);

/// Per run: its inputs, a line per k (measured, then each kind with its error), the MAPE and the knees; then one
/// summary line per run and kind.
std::string format_saturation_table(const std::vector<SaturationComparison>& comparisons);

}  // namespace psbench::perf
