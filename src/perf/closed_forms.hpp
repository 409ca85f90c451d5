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

/// Mean staleness from a cycle: W - 1 others' updates per cycle C, none during one's own service D_s, so
/// (W - 1)(C - R_srv) / (C - D_s) of them fall between one's pull and one's next arrival at the server.
double staleness_estimate(int workers, double cycle_s, double server_residence_s, double service_s);

}  // namespace psbench::perf
