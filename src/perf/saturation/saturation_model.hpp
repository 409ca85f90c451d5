#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "perf/mva.hpp"
#include "perf/sim/simulation.hpp"
#include "results/bench_file.hpp"

namespace psbench::perf {

/// What the saturation model takes from one run of server_saturation.json (k = 1 figures and the context only,
/// never the curve it predicts).
struct SaturationInputs {
  int servers = 1;                ///< S
  std::uint64_t parameters = 0;   ///< P
  double think_s = 0.0;           ///< Z: each client's sleep between exchanges (think_us)
  double service_s = 0.0;         ///< D: one server's service time per update of its shard, kept busy
  bool service_per_core = false;  ///< D is what an update needs of a core (the probe shared the cores), not clock time
  std::optional<double> idle_service_s{};  ///< D_0: for a server that idled before the push (k = 1 with Z); unset: D
  double service_cv = 0.0;                 ///< coefficient of variation of D at k = 1
  double overhead_s = 0.0;    ///< c: a client's exchange time outside the servers' clock, k = 1 response - D
  double client_cpu_s = 0.0;  ///< a client's CPU time per exchange at k = 1 (client_cpu_us; c where absent)
  double preemption = 0.0;    ///< the busy probe's server stretch beyond the processor-sharing formula's, less 1
  double preemption_updates_per_s = 0.0;  ///< the probe's updates/s, where that preemption was measured
  int cores = 1;                          ///< the node's cores (context.cores)
  bool cpu_station = true;  ///< model the cores where the active ranks outnumber them (false: a core each)
};

/// One predicted point of a saturation curve.
struct SaturationPrediction {
  int clients = 0;             ///< k
  double updates_per_s = 0.0;  ///< full pushes per second (one per client exchange, all shards)
  double utilization = 0.0;    ///< busy share of the busiest server
  double response_s = 0.0;     ///< push to every fresh shard, as a client sees it
  double queue_length = 0.0;   ///< mean clients inside an exchange (X x response)
};

/// The inputs of one run; cores from the file's context. D is service_busy_us (service_us in a file that has
/// none); where that probe's busy_clients shared the cores with the servers (cpu_station), D is what an update
/// needs of a core: the probe's server_cpu_busy_us where the file has it, else its time divided by the probe's
/// own server_stretch at busy_updates_per_s, so that the model does not stretch it twice. D_0 is service_us:
/// at k = 1 with a think time the server sleeps before every update. Throws UserError (naming the run) for a
/// run with no k = 1 point, a service or CPU time that is not positive, a negative think time, a probe of no
/// clients or cores below 1.
SaturationInputs saturation_inputs(const results::SaturationRun& run, int cores, bool cpu_station = true);

/// D_0 where the run has one, else D: the service of a push that finds the server idle.
double service_after_idle_s(const SaturationInputs& inputs);

/// True when the k clients' exchange overhead shares the node's cores with the S servers: cpu_station is set and
/// the S + k active ranks outnumber the cores (the clients' sleep takes no core).
bool saturation_cores_shared(const SaturationInputs& inputs, int clients);

/// How much longer a server's update takes on shared cores at X updates/s: a woken client runs first (Linux
/// preempts for it), so the S servers share the m - X c_cpu cores the clients leave: max(1, S / (m - X c_cpu)),
/// times 1 + preemption x X / X_probe: the clients' wake-ups that land on a busy server's core, in proportion
/// to their rate.
double server_stretch(const SaturationInputs& inputs, double updates_per_s);

/// The closed network of k clients: a delay of Z + c; the S servers as one lockstep queue of demand
/// D x stretch (every full push visits every server; D_0 x stretch for a push that finds it idle) with D's cv
/// (1 for exponential times).
ClosedNetwork saturation_network(const SaturationInputs& inputs, double stretch, TimeDistribution times);

/// MVA predictions at each k of clients (ascending): where cores are shared, the servers' stretch is a fixed
/// point on the throughput.
std::vector<SaturationPrediction> predict_saturation_mva(const SaturationInputs& inputs,
                                                         const std::vector<int>& clients, TimeDistribution times);

/// N* = (Z + c + D_0) / D: where the network's two throughput bounds cross (one client finds the server idle).
double saturation_knee_bound(const SaturationInputs& inputs);

/// The knee's client count by find_saturation_knee (perf/saturation_knee.hpp), the rule the benchmark uses
/// too. rates are in the order of clients (ascending).
int saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates);

}  // namespace psbench::perf
