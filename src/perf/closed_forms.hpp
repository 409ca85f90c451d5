#pragma once

#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// T_init with every worker reading at once at one reader's full bandwidth: open + D / B_seq.
double ideal_init_io(const StepCosts& costs);

/// T_init as psbench reads: sequential, W readers one after another, W (open + D / B_seq); parallel, all
/// at once sharing the disk, open + max(D / B_seq, W D / B_par). Where the calibration measured reads into
/// fresh pages, a node's first reader takes t_1 = open + D / B_seq and each later one t_later: sequential,
/// F t_1 + (W - F) t_later with F = ceil(W / w) nodes' first readers (w workers a node); parallel, at least
/// the page work of a node's w readers on its cores, (t_1 + (w - 1) t_later) / min(w, c).
double revised_init_io(const StepCosts& costs, IoMode io);

/// The ideal model: T_comp = steps x (t_fb + t_pp + D_s), perfect 1/W scaling, no saturation.
Prediction predict_ideal(const StepCosts& costs);

/// The revised model: the sequential-disk term, and T_comp the largest of the ideal time, the server bound
/// U D_s (each server serves all U updates), the server-link bound U x link_s, and, where ranks outnumber
/// cores, the CPU bound U (t_fb + S D_s) / (nodes c).
Prediction predict_revised(const StepCosts& costs, IoMode io);

/// Mean staleness (versions a push is behind when its server applies it) of W workers doing `steps_per_worker`
/// pushes each: a reply carries the version right after its own update, and in a cycle C = W / X the server
/// applies X C = W updates (Little's law), so the W - 1 others' all land before the worker's next one, whether
/// while it computes, while its push travels or while it queues; the first round, started from version 0 by
/// all, sees half of that: (W - 1)(1 - 1 / (2 steps)).
double staleness_estimate(int workers, double steps_per_worker);

}  // namespace psbench::perf
