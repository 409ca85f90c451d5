#pragma once

#include <vector>

namespace psbench::perf {

/// Where a server's throughput levels off, by the one rule the saturation benchmark and the model share.
struct SaturationKnee {
  double plateau_updates_per_s = 0.0;  ///< median updates/s over the largest third of the client counts
  int clients = 0;                     ///< first k whose updates/s is within 10% of the plateau (0: none)
};

/// The plateau and the knee of rates measured or predicted at each k of clients (ascending, same length as
/// rates). Empty or mismatched inputs give the zero knee.
SaturationKnee find_saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates);

}  // namespace psbench::perf
