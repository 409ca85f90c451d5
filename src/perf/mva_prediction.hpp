#pragma once

#include <vector>

#include "perf/calibration.hpp"
#include "perf/mva.hpp"
#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// How the fork-join of a push to S shards enters the single-class network.
enum class ShardModel {
  kLockstep,    ///< one queue of demand D_s: the S servers see the same arrivals and move in lockstep (exact for
                ///< equal fixed service times; optimistic by the mean max of S draws for random ones)
  kSequential,  ///< S queues visited in turn: a pessimistic bound (exact for S = 1)
};

/// The closed network of one configuration: W customers; think time t_pp (plus t_fb while every worker has a
/// core of its own); the servers' queue(s) of demand D_s, on a network D_s plus the shard's transfers the
/// server waits for (StepCosts::server_demand_s, taken out of the think time); where ranks outnumber cores,
/// the nodes' cores as one multi-server station of t_fb x cpu_inflation, and each server's demand times
/// service_inflation (its share of shared cores). The first station is always a server.
ClosedNetwork configuration_network(const StepCosts& costs, double cpu_inflation, double service_inflation = 1.0,
                                    ShardModel shards = ShardModel::kLockstep);

/// Exact-MVA predictions of every W in workers (ascending) at S servers. Where cores are shared the servers'
/// busy cores are taken from the workers', and the servers' demand stretched by their share of the cores,
/// by a fixed point on the server utilisation and the computing workers (one solve per W);
/// otherwise one solve up to the largest W serves every W.
std::vector<Prediction> predict_mva(const Calibration& calibration, const Scenario& scenario,
                                    const std::vector<int>& workers, int servers);

}  // namespace psbench::perf
