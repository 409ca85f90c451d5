#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "perf/calibration.hpp"
#include "perf/prediction.hpp"

namespace psbench::perf {

struct PredictRequest;

/// The share of predictions from drawn calibrations an interval holds: from the 10th to the 90th percentile.
inline constexpr double kIntervalCoverage = 0.8;

/// A calibration drawn from calibration's measured spread: every fitted value and curve (each model's step and
/// evaluation call, push/pull, update, the 1-bit kernels, allreduce, service scale, the reads, the fresh-page read,
/// set-up, exchange overhead, core sharing) scaled by its own factor exp(sigma z), z standard normal and sigma its
/// spread's log-normal sigma (spread_sigma), so the factor's 10th and 90th percentiles are the spread's; the
/// sequential bandwidth by the inverse of its read line's factor. A fit without spread (one point) stays as it is.
Calibration draw_calibration(const Calibration& calibration, std::mt19937_64& random);

/// The log-normal sigma of the median of `runs` runs over that of one run: 1/sqrt(runs) for one or two (their mean),
/// then sqrt(pi / (2 runs)), the median's large-sample efficiency, at most 1.
double median_spread_scale(int runs);

/// Sets every prediction's interval: the 10th and 90th percentiles of its times over request.interval_samples
/// predictions of the same request, each from a calibration drawn by draw_calibration (the sim's seed drawn too).
/// Each drawn total is also scaled by a factor drawn from the runs' own spread (calibration.run_spread), its sigma
/// scaled by median_spread_scale(request.runs_in_median): a measured total scatters around the model's even where
/// the calibration is exact. predictions must be predict(calibration, request) without intervals, in its order.
void add_intervals(const Calibration& calibration, const PredictRequest& request, std::vector<Prediction>& predictions);

}  // namespace psbench::perf
