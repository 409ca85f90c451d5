#include "saturation_summary.hpp"

#include "common/check.hpp"
#include "common/median.hpp"
#include "perf/saturation/saturation_knee.hpp"

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
  std::vector<int> clients;
  std::vector<double> rates;
  for (const SaturationPoint& point : points) {
    clients.push_back(point.clients);
    rates.push_back(point.updates_per_s);
  }
  const perf::SaturationKnee knee = perf::find_saturation_knee(clients, rates);
  return Knee{knee.plateau_updates_per_s, knee.clients};
}

double model_knee(double think_us, double service_us) {
  PSBENCH_CHECK(service_us > 0.0) << "service time " << service_us << " us";
  return (think_us + service_us) / service_us;
}

}  // namespace psbench::bench
