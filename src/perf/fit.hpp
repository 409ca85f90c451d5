#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace psbench::perf {

/// How the measured points of a fit spread around it: the 10th and 90th percentiles of measured / fitted over
/// its points (1 and 1: a single point, or nothing measured). The predictions' intervals draw from it.
struct Spread {
  double low = 1.0;   ///< 10th percentile of measured / fitted
  double high = 1.0;  ///< 90th percentile of measured / fitted
};

/// A fitted scalar with where it came from and how well it fits: the median of its points, their relative RMS
/// deviation from it (0 for a single point) and their spread.
struct FittedValue {
  double value = 0.0;       ///< the fitted value: the points' median
  std::string source;       ///< file(s) the points came from, "" when not calibrated
  double residual = 0.0;    ///< relative RMS deviation of the points from the value
  int points = 0;           ///< points used (0: not calibrated)
  Spread spread;            ///< the points over the value
  std::string measured_by;  ///< the benchmark or run figure the points are (calibrate names it)
};

/// One measured point (x, y) for a fit.
struct Point {
  double x = 0.0;  ///< abscissa (bytes, batch size)
  double y = 0.0;  ///< ordinate (seconds)
};

/// y = intercept + slope x fitted by least squares, with its source and relative RMS residual; or, where
/// `table` holds measured medians, the piecewise-linear curve through them (SMPI's way of calibrating
/// message times), with the line kept as its summary.
struct LinearFit {
  double intercept = 0.0;    ///< y at x = 0
  double slope = 0.0;        ///< dy / dx
  std::string source;        ///< file(s) the points came from
  double residual = 0.0;     ///< relative RMS deviation of the points from the line (from the table, if any)
  int points = 0;            ///< points used (0: not calibrated)
  std::vector<Point> table;  ///< medians per x, ascending x; empty: the line alone
  Spread spread;             ///< the points over the curve (the line, or the table where there is one)
  std::string measured_by;   ///< the benchmark or run figure the points are (calibrate names it)
  /// The curve at x: the line, or the table interpolated between neighbours, its first segment extended
  /// to (0, max(0, intercept)) below the smallest x and its last segment's slope above the largest.
  [[nodiscard]] double at(double x) const;
};

/// Least-squares line through points (one point: a line through the origin; intercepts below 0 are
/// refitted through the origin so no time goes negative). Throws UserError for no points.
LinearFit fit_line(const std::vector<Point>& points, const std::string& source, const std::string& what);

/// The line of fit_line plus the table of medians per x: for quantities measured at many sizes whose cost
/// per byte changes with the size (caches, eager and rendezvous protocols). Throws UserError for no points.
LinearFit fit_table(const std::vector<Point>& points, const std::string& source, const std::string& what);

/// Median of values with their relative RMS residual and spread. Throws UserError for no values.
FittedValue fit_median(const std::vector<double>& values, const std::string& source, const std::string& what);

/// The spread of ratios measured / fitted: their 10th and 90th percentiles (common/median.hpp's percentile); 1 and 1
/// for fewer than two ratios or any ratio not positive (a fit through 0 or a value that changes sign).
Spread spread_of(const std::vector<double>& ratios);

/// The spread's log-normal sigma: (ln high - ln low) / (2 x 1.2816), the standard deviation of a log-normal whose
/// 10th and 90th percentiles are low and high.
double spread_sigma(const Spread& spread);

/// JSON of a fitted value: {"value", "source", "residual", "points", "spread": [low, high], "measured_by"}.
void to_json(nlohmann::json& out, const FittedValue& value);
/// Reads a fitted value; throws nlohmann::json errors for missing keys.
void from_json(const nlohmann::json& in, FittedValue& value);
/// JSON of a line: {"intercept", "slope", "source", "residual", "points", "spread", "measured_by"}, plus "table"
/// ([[x, y], ...]) when it has one. "spread" and "measured_by" are optional on reading (calibrations before them).
void to_json(nlohmann::json& out, const LinearFit& fit);
/// Reads a line (and its table, when present).
void from_json(const nlohmann::json& in, LinearFit& fit);

}  // namespace psbench::perf
