#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace psbench::perf {

/// A fitted scalar with where it came from and how well it fits: residual is the relative RMS deviation
/// of the points it was fitted to (0 for a single point).
struct FittedValue {
  double value = 0.0;     ///< the fitted value
  std::string source;     ///< file(s) the points came from, "" when not calibrated
  double residual = 0.0;  ///< relative RMS deviation of the points from the value
  int points = 0;         ///< points used (0: not calibrated)
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

/// Mean of values with its relative RMS residual. Throws UserError for no values.
FittedValue fit_mean(const std::vector<double>& values, const std::string& source, const std::string& what);

/// JSON of a fitted value: {"value", "source", "residual", "points"}.
void to_json(nlohmann::json& out, const FittedValue& value);
/// Reads a fitted value; throws nlohmann::json errors for missing keys.
void from_json(const nlohmann::json& in, FittedValue& value);
/// JSON of a line: {"intercept", "slope", "source", "residual", "points"}, plus "table" ([[x, y], ...]) when it has
/// one.
void to_json(nlohmann::json& out, const LinearFit& fit);
/// Reads a line (and its table, when present).
void from_json(const nlohmann::json& in, LinearFit& fit);

}  // namespace psbench::perf
