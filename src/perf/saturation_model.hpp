#pragma once

#include <cstdint>
#include <vector>

#include "perf/mva.hpp"
#include "perf/simulation.hpp"
#include "results/bench_file.hpp"

namespace psbench::perf {

/// What the saturation model takes from one run of server_saturation.json (k = 1 figures and the context only,
/// never the curve it predicts).
struct SaturationInputs {
  int servers = 1;               ///< S
  std::uint64_t parameters = 0;  ///< P
  double think_s = 0.0;          ///< Z: each client's sleep between exchanges (think_us)
  double service_s = 0.0;        ///< D: one server's service time per update of its shard, at k = 1 (service_us)
  double service_cv = 0.0;       ///< coefficient of variation of D at k = 1
  double overhead_s = 0.0;       ///< c: a client's exchange time outside the servers' clock, k = 1 response - D
  int cores = 1;                 ///< the node's cores (context.cores)
  bool cpu_station = true;       ///< model the cores where the active ranks outnumber them (false: a core each)
};

/// One predicted point of a saturation curve.
struct SaturationPrediction {
  int clients = 0;             ///< k
  double updates_per_s = 0.0;  ///< full pushes per second (one per client exchange, all shards)
  double utilization = 0.0;    ///< busy share of the busiest server
  double response_s = 0.0;     ///< push to every fresh shard, as a client sees it
  double queue_length = 0.0;   ///< mean clients inside an exchange (X x response)
};

/// The inputs of one run; cores from the file's context. Where the k = 1 point already shared the cores
/// (cpu_station and S + 1 > cores), c is taken back to a free core's: divided by m / (m - S U) with that point's
/// utilisation U. Throws UserError (naming the run) for a run with no k = 1 point, a service time that is not
/// positive, a negative think time or cores below 1.
SaturationInputs saturation_inputs(const results::SaturationRun& run, int cores, bool cpu_station = true);

/// True when the k clients' exchange overhead shares the node's cores with the S servers: cpu_station is set and
/// the S + k active ranks outnumber the cores (the clients' sleep takes no core).
bool saturation_cores_shared(const SaturationInputs& inputs, int clients);

/// The closed network of k clients: a delay of Z (plus c while no core is shared); the S servers as one
/// lockstep queue of demand D (every full push visits every server) with D's cv (1 for exponential times);
/// where cores are shared, the cores as a multi-server station of demand c x cpu_inflation. The server queue is
/// always the first station.
ClosedNetwork saturation_network(const SaturationInputs& inputs, int clients, double cpu_inflation,
                                 TimeDistribution times);

/// MVA predictions at each k of clients (ascending): where cores are shared, the servers' busy cores are taken
/// from the clients' by a fixed point on the utilisation (inflation m / (m - S U)).
std::vector<SaturationPrediction> predict_saturation_mva(const SaturationInputs& inputs,
                                                         const std::vector<int>& clients, TimeDistribution times);

/// N* = (Z + c + D) / D: where the network's two throughput bounds cross.
double saturation_knee_bound(const SaturationInputs& inputs);

/// The knee as the benchmark defines it: the first k whose updates/s is within 10% of the plateau, the median
/// updates/s over the largest third of the client counts. rates are in the order of clients (ascending).
int saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates);

}  // namespace psbench::perf
