#include "saturation_summary.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "common/median.hpp"

namespace psbench::bench {

SaturationPoint median_point(const std::vector<SaturationPoint>& repeats) {
  PSBENCH_CHECK(!repeats.empty()) << "no repetitions of a saturation point";
  const auto median_of = [&](double SaturationPoint::*field) {
    std::vector<double> values;
    for (const SaturationPoint& point : repeats) values.push_back(point.*field);
    return median(values);
  };
  SaturationPoint point;
  point.clients = repeats.front().clients;
  for (double SaturationPoint::*field :
       {&SaturationPoint::updates_per_s, &SaturationPoint::utilization, &SaturationPoint::response_us,
        &SaturationPoint::queue_length, &SaturationPoint::service_us, &SaturationPoint::think_us,
        &SaturationPoint::client_cpu_us, &SaturationPoint::server_cpu_us}) {
    point.*field = median_of(field);
  }
  return point;
}

Knee find_knee(const std::vector<SaturationPoint>& points) {
  PSBENCH_CHECK(!points.empty()) << "no saturation points";
  const std::size_t top = std::max<std::size_t>(1, points.size() / 3);
  std::vector<double> rates;
  for (std::size_t i = points.size() - top; i < points.size(); ++i) rates.push_back(points[i].updates_per_s);
  std::sort(rates.begin(), rates.end());
  const std::size_t n = rates.size();
  const double plateau = n % 2 == 1 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]);
  Knee knee{plateau, 0};
  for (const SaturationPoint& point : points) {
    if (point.updates_per_s >= 0.9 * plateau) {
      knee.clients = point.clients;
      break;
    }
  }
  return knee;
}

double model_knee(double think_us, double service_us) {
  PSBENCH_CHECK(service_us > 0.0) << "service time " << service_us << " us";
  return (think_us + service_us) / service_us;
}

}  // namespace psbench::bench
