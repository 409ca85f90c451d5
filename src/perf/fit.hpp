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

/// y = intercept + slope x fitted by least squares, with its source and relative RMS residual.
struct LinearFit {
  double intercept = 0.0;  ///< y at x = 0
  double slope = 0.0;      ///< dy / dx
  std::string source;      ///< file(s) the points came from
  double residual = 0.0;   ///< relative RMS deviation of the points from the line
  int points = 0;          ///< points used (0: not calibrated)
  /// The line at x.
  [[nodiscard]] double at(double x) const { return intercept + slope * x; }
};

/// One measured point (x, y) for a fit.
struct Point {
  double x = 0.0;  ///< abscissa (bytes, batch size)
  double y = 0.0;  ///< ordinate (seconds)
};

/// Least-squares line through points (one point: a line through the origin; intercepts below 0 are
/// refitted through the origin so no time goes negative). Throws UserError for no points.
LinearFit fit_line(const std::vector<Point>& points, const std::string& source, const std::string& what);

/// Mean of values with its relative RMS residual. Throws UserError for no values.
FittedValue fit_mean(const std::vector<double>& values, const std::string& source, const std::string& what);

/// JSON of a fitted value: {"value", "source", "residual", "points"}.
void to_json(nlohmann::json& out, const FittedValue& value);
/// Reads a fitted value; throws nlohmann::json errors for missing keys.
void from_json(const nlohmann::json& in, FittedValue& value);
/// JSON of a line: {"intercept", "slope", "source", "residual", "points"}.
void to_json(nlohmann::json& out, const LinearFit& fit);
/// Reads a line.
void from_json(const nlohmann::json& in, LinearFit& fit);

}  // namespace psbench::perf
