#include "perf/fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.hpp"
#include "common/median.hpp"

namespace psbench::perf {
namespace {

double relative_rms(const std::vector<Point>& points, const LinearFit& fit) {
  double sum = 0.0;
  for (const Point& p : points) {
    const double predicted = fit.at(p.x);
    const double deviation = p.y != 0.0 ? (predicted - p.y) / p.y : predicted;
    sum += deviation * deviation;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}

// Measured over fitted at each point.
std::vector<double> ratios_to(const std::vector<Point>& points, const LinearFit& fit) {
  std::vector<double> ratios;
  for (const Point& p : points) {
    const double fitted = fit.at(p.x);
    ratios.push_back(fitted > 0.0 ? p.y / fitted : 0.0);
  }
  return ratios;
}

LinearFit through_origin(const std::vector<Point>& points) {
  double xy = 0.0;
  double xx = 0.0;
  for (const Point& p : points) {
    xy += p.x * p.y;
    xx += p.x * p.x;
  }
  LinearFit fit;
  fit.slope = xx > 0.0 ? xy / xx : 0.0;
  return fit;
}

double between(const Point& a, const Point& b, double x) {
  if (b.x == a.x) return b.y;
  return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x);
}

}  // namespace

double LinearFit::at(double x) const {
  if (table.empty()) return intercept + slope * x;
  if (table.size() == 1 || x <= table.front().x) {
    const Point origin{0.0, std::min(std::max(0.0, intercept), table.front().y)};
    return x <= table.front().x ? between(origin, table.front(), x) : table.front().y;
  }
  const auto upper = std::lower_bound(table.begin(), table.end(), x, [](const Point& p, double v) { return p.x < v; });
  if (upper == table.end()) {
    const Point& last = table.back();
    const Point& before = table[table.size() - 2];
    return last.y + std::max(0.0, (last.y - before.y) / (last.x - before.x)) * (x - last.x);
  }
  return between(*(upper - 1), *upper, x);
}

LinearFit fit_line(const std::vector<Point>& points, const std::string& source, const std::string& what) {
  if (points.empty()) throw UserError("no points to fit " + what + " in " + source);
  LinearFit fit = through_origin(points);
  if (points.size() >= 2) {
    const auto n = static_cast<double>(points.size());
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    for (const Point& p : points) {
      sx += p.x;
      sy += p.y;
      sxx += p.x * p.x;
      sxy += p.x * p.y;
    }
    const double denominator = n * sxx - sx * sx;
    if (denominator > 0.0) {
      LinearFit full;
      full.slope = (n * sxy - sx * sy) / denominator;
      full.intercept = (sy - full.slope * sx) / n;
      if (full.intercept >= 0.0 && full.slope >= 0.0) fit = full;
    }
  }
  fit.source = source;
  fit.points = static_cast<int>(points.size());
  fit.residual = relative_rms(points, fit);
  fit.spread = spread_of(ratios_to(points, fit));
  return fit;
}

LinearFit fit_table(const std::vector<Point>& points, const std::string& source, const std::string& what) {
  LinearFit fit = fit_line(points, source, what);
  std::map<double, std::vector<double>> by_x;
  for (const Point& p : points) by_x[p.x].push_back(p.y);
  for (auto& [x, ys] : by_x) fit.table.push_back({x, median(std::move(ys))});
  fit.residual = relative_rms(points, fit);
  fit.spread = spread_of(ratios_to(points, fit));
  return fit;
}

FittedValue fit_median(const std::vector<double>& values, const std::string& source, const std::string& what) {
  if (values.empty()) throw UserError("no values to fit " + what + " in " + source);
  FittedValue fitted;
  fitted.value = median(values);
  std::vector<double> ratios;
  for (const double v : values) ratios.push_back(fitted.value > 0.0 ? v / fitted.value : 0.0);
  fitted.spread = spread_of(ratios);
  double squares = 0.0;
  for (const double v : values) {
    const double deviation = fitted.value != 0.0 ? (v - fitted.value) / fitted.value : v;
    squares += deviation * deviation;
  }
  fitted.residual = std::sqrt(squares / static_cast<double>(values.size()));
  fitted.source = source;
  fitted.points = static_cast<int>(values.size());
  return fitted;
}

Spread spread_of(const std::vector<double>& ratios) {
  if (ratios.size() < 2) return {};
  for (const double r : ratios)
    if (!(r > 0.0)) return {};
  return {percentile(ratios, 0.1), percentile(ratios, 0.9)};
}

double spread_sigma(const Spread& spread) {
  constexpr double kZ90 = 1.2815515655446004;  // the standard normal's 90th percentile
  if (spread.low <= 0.0 || spread.high <= spread.low) return 0.0;
  return (std::log(spread.high) - std::log(spread.low)) / (2.0 * kZ90);
}

namespace {

nlohmann::json spread_json(const Spread& spread) { return nlohmann::json::array({spread.low, spread.high}); }

// "spread" and "measured_by" where present (calibrations made before them lack both).
void read_spread(const nlohmann::json& in, Spread& spread, std::string& measured_by) {
  spread = {};
  if (in.contains("spread")) spread = {in.at("spread").at(0).get<double>(), in.at("spread").at(1).get<double>()};
  measured_by = in.contains("measured_by") ? in.at("measured_by").get<std::string>() : "";
}

}  // namespace

void to_json(nlohmann::json& out, const FittedValue& value) {
  out = {{"value", value.value},
         {"source", value.source},
         {"residual", value.residual},
         {"points", value.points},
         {"spread", spread_json(value.spread)},
         {"measured_by", value.measured_by}};
}

void from_json(const nlohmann::json& in, FittedValue& value) {
  value.value = in.at("value").get<double>();
  value.source = in.at("source").get<std::string>();
  value.residual = in.at("residual").get<double>();
  value.points = in.at("points").get<int>();
  read_spread(in, value.spread, value.measured_by);
}

void to_json(nlohmann::json& out, const LinearFit& fit) {
  out = {{"intercept", fit.intercept},    {"slope", fit.slope},   {"source", fit.source},
         {"residual", fit.residual},      {"points", fit.points}, {"spread", spread_json(fit.spread)},
         {"measured_by", fit.measured_by}};
  if (fit.table.empty()) return;
  nlohmann::json table = nlohmann::json::array();
  for (const Point& p : fit.table) table.push_back({p.x, p.y});
  out["table"] = std::move(table);
}

void from_json(const nlohmann::json& in, LinearFit& fit) {
  fit.intercept = in.at("intercept").get<double>();
  fit.slope = in.at("slope").get<double>();
  fit.source = in.at("source").get<std::string>();
  fit.residual = in.at("residual").get<double>();
  fit.points = in.at("points").get<int>();
  read_spread(in, fit.spread, fit.measured_by);
  fit.table.clear();
  if (!in.contains("table")) return;
  for (const auto& pair : in.at("table")) fit.table.push_back({pair.at(0).get<double>(), pair.at(1).get<double>()});
}

}  // namespace psbench::perf
