#include "perf/plan_grid.hpp"

#include <algorithm>
#include <cmath>

#include "perf/mva_prediction.hpp"

namespace psbench::perf {
namespace {

std::vector<int> ranks_per_node_choices(const Scenario& base) {
  const int cores = std::max(1, base.platform.cores_per_node);
  if (base.platform.kind == PlatformKind::kThis) return {0};
  std::vector<int> choices;
  for (int r = 1; r < cores; r *= 2) choices.push_back(r);
  choices.push_back(cores);
  choices.push_back(2 * cores);
  return choices;
}

// The most workers that fit the budget beside S servers, r to a node (on `this`, 2c ranks on its node).
int most_workers(const Scenario& base, int servers, int ranks_per_node, int node_budget) {
  const double ranks = ranks_per_node > 0 ? static_cast<double>(node_budget) * ranks_per_node
                                          : 2.0 * std::max(1, base.platform.cores_per_node);
  return static_cast<int>(std::min(ranks - servers, static_cast<double>(base.samples)));
}

// The powers of two up to most, the knee's neighbours, and every r's most that fits within this r's.
std::vector<int> worker_choices(const Calibration& calibration, const Scenario& scenario, int servers, int most,
                                const std::vector<int>& every_most) {
  std::vector<int> workers;
  for (long w = 1; w <= most; w *= 2) workers.push_back(static_cast<int>(w));
  for (const int other : every_most)
    if (other >= 1 && other <= most) workers.push_back(other);
  const double knee = knee_population(configuration_network(step_costs(calibration, scenario, 1, servers), 1.0));
  for (int w = static_cast<int>(std::floor(knee)) - 1; w <= static_cast<int>(std::ceil(knee)) + 1; ++w)
    workers.push_back(std::clamp(w, 1, most));
  std::sort(workers.begin(), workers.end());
  workers.erase(std::unique(workers.begin(), workers.end()), workers.end());
  return workers;
}

// Drops the W whose shared cores would cost the MVA more than kPlanSharedCoreWork.
void keep_affordable(const Scenario& scenario, int servers, std::vector<int>& workers) {
  const int cores = std::max(1, scenario.platform.cores_per_node);
  const auto costly = [&](int w) {
    const int nodes = nodes_for(scenario.platform, w + servers, scenario.ranks_per_node);
    const int per_node = scenario.ranks_per_node > 0 ? scenario.ranks_per_node : w + servers;
    return per_node > cores && static_cast<double>(w) * nodes * cores > kPlanSharedCoreWork;
  };
  workers.erase(std::remove_if(workers.begin(), workers.end(), costly), workers.end());
}

}  // namespace

Scenario cell_scenario(const Scenario& base, IoMode io, int ranks_per_node) {
  Scenario scenario = base;
  scenario.io = io;
  scenario.read = io == IoMode::kSequential ? ReadMode::kWhole : ReadMode::kPartition;
  scenario.ranks_per_node = ranks_per_node;
  return scenario;
}

std::vector<PlanCell> plan_grid(const Calibration& calibration, const Scenario& base, int node_budget) {
  std::vector<PlanCell> cells;
  const std::vector<int> ranks_per_node = ranks_per_node_choices(base);
  for (const int r : ranks_per_node) {
    for (int servers = 1; servers <= kPlanMaxServers; servers *= 2) {
      const int most = most_workers(base, servers, r, node_budget);
      if (most < 1) break;
      std::vector<int> every_most;  // r does not change mva's figures while each rank has a core: only the nodes
      for (const int other : ranks_per_node) every_most.push_back(most_workers(base, servers, other, node_budget));
      for (const IoMode io : {IoMode::kSequential, IoMode::kParallel}) {
        PlanCell cell{servers, r, io, {}};
        const Scenario scenario = cell_scenario(base, io, r);
        cell.workers = worker_choices(calibration, scenario, servers, most, every_most);
        keep_affordable(scenario, servers, cell.workers);
        if (!cell.workers.empty()) cells.push_back(std::move(cell));
      }
    }
  }
  return cells;
}

}  // namespace psbench::perf
