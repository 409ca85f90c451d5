#pragma once

#include <vector>

#include "perf/calibration.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// The most servers plan tries.
inline constexpr int kPlanMaxServers = 256;
/// Where ranks outnumber cores the MVA's multi-server station costs O(W x N c): plan tries such a W only while
/// W x N c stays within this.
inline constexpr double kPlanSharedCoreWork = 2e5;

/// One cell of plan's grid: S, r and the I/O mode, and the worker counts it tries.
struct PlanCell {
  int servers = 1;                  ///< S
  int ranks_per_node = 0;           ///< r (0 on `this`: every rank on its one node)
  IoMode io = IoMode::kSequential;  ///< --io, read whole if sequential, partition if parallel
  std::vector<int> workers;         ///< W, ascending
};

/// The scenario of a cell: the base one with the cell's I/O mode, its default read and r.
Scenario cell_scenario(const Scenario& base, IoMode io, int ranks_per_node);

/// The grid within a budget of nodes: S over the powers of two up to kPlanMaxServers; r over the powers of two
/// up to the cores c, c itself and 2c (on `this` one node of up to 2c ranks); both I/O modes; W over the powers
/// of two, the knee's neighbours (floor(W*) - 1 to ceil(W*) + 1, W* at W = 1) and the most that fit at each r
/// (N r - S, at most the samples) that fits this r too, where ranks outnumber cores only while
/// W x N c <= kPlanSharedCoreWork.
std::vector<PlanCell> plan_grid(const Calibration& calibration, const Scenario& base, int node_budget);

}  // namespace psbench::perf
