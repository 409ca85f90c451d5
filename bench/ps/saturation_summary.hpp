#pragma once

#include <vector>

namespace psbench::bench {

/// What a closed loop of k clients measured against S servers.
struct SaturationPoint {
  int clients = 0;             ///< k
  double updates_per_s = 0.0;  ///< full pushes (one per client exchange, all shards) per second
  double utilization = 0.0;    ///< busy fraction of the busiest server
  double response_us = 0.0;    ///< mean push-to-fresh-shard time as the clients see it
  double queue_length = 0.0;   ///< mean number of clients inside an exchange (waiting or being served)
  double service_us = 0.0;     ///< mean service time per update per server at this k
  double think_us = 0.0;       ///< mean think (sleep) time the clients measured
  double client_cpu_us = 0.0;  ///< a client's CPU time per exchange (its thread's, kernel included; sleep takes none)
  double server_cpu_us = 0.0;  ///< a server's CPU time per update (its thread's, kernel included, idle waits too)
};

/// Where a run's throughput levels off.
struct Knee {
  double plateau_updates_per_s = 0.0;  ///< median updates/s over the largest third of the client counts
  int clients = 0;                     ///< first k whose updates/s is within 10% of the plateau (0: none)
};

/// One point whose every figure is the median of that figure over repetitions of the same k (at least one);
/// clients from the first.
SaturationPoint median_point(const std::vector<SaturationPoint>& repeats);

/// The plateau and the measured knee of points in ascending k (at least one point), by
/// perf::find_saturation_knee, the rule the model applies to its predictions too.
Knee find_knee(const std::vector<SaturationPoint>& points);

/// The knee a closed network predicts, (Z + D) / D, for think time Z and service time D (> 0).
double model_knee(double think_us, double service_us);

}  // namespace psbench::bench
