#pragma once

#include "perf/collective_costs.hpp"
#include "perf/prediction.hpp"

namespace psbench::perf {

/// The training loop of workers in lockstep: steps (t_fb' + t_upd) + syncs (transfer + codec + block update), where
/// t_fb' is t_fb stretched by the busiest node's workers over its cores when they outnumber them (not for ideal,
/// which never shares a core).
double collective_compute_s(const CollectiveCosts& costs, bool share_cores);

/// A prediction of kind ideal, revised or mva for a learner without servers: the closed form above for every kind
/// (no queue forms where every worker waits for all at each synchronisation, so mva's is revised's), ideal with
/// ideal_init_io and unshared cores, the others with revised_init_io. Servers 0, server utilisation 0, staleness
/// 0, no knee; updates_per_s counts the workers' steps.
Prediction predict_collective(const CollectiveCosts& costs, Kind kind, IoMode io);

}  // namespace psbench::perf
