#pragma once

#include <vector>

#include "results/results_file.hpp"

namespace psbench::train {

/// The results file's env section: hosts, ranks and cores from the per_rank entries, the roles' counts, the
/// oneDNN threads, rank 0's wait budget, the linked libraries' versions, and rank 0's CPU and oneDNN ISA.
results::Environment run_environment(const std::vector<results::RankEntry>& per_rank, int servers, int workers,
                                     int threads);

}  // namespace psbench::train
