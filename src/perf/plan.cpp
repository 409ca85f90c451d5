#include "perf/plan.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "common/check.hpp"
#include "common/error.hpp"
#include "perf/plan_grid.hpp"
#include "perf/predict.hpp"

namespace psbench::perf {
namespace {

void check_budget(const PlatformSpec& platform, int nodes) {
  if (nodes < 1)
    throw UserError("--nodes " + std::to_string(nodes) + " is below 1: give the number of nodes you can use");
  if (platform.kind == PlatformKind::kThis && nodes > 1)
    throw UserError("--nodes " + std::to_string(nodes) +
                    ": --platform this is one node; give --nodes 1, or a rack:..., bluewaters or FILE.xml platform");
  if (platform.kind == PlatformKind::kRack && nodes > platform.nodes)
    throw UserError("--nodes " + std::to_string(nodes) + " is more than the " + std::to_string(platform.nodes) +
                    " nodes of --platform " + platform.text + ": give at most " + std::to_string(platform.nodes));
}

std::vector<PlanChoice> predict_cell(const Calibration& calibration, const Scenario& base, const PlanCell& cell) {
  PredictRequest request;
  request.scenario = cell_scenario(base, cell.io, cell.ranks_per_node);
  request.workers = cell.workers;
  request.servers = {cell.servers};
  request.kinds = {Kind::kMva};
  std::vector<PlanChoice> choices;
  for (const Prediction& p : predict(calibration, request)) {
    PlanChoice choice;
    choice.mva = p;
    choice.io = cell.io;
    choice.ranks_per_node = cell.ranks_per_node;
    choice.nodes = nodes_for(base.platform, p.workers + p.servers, cell.ranks_per_node);
    choices.push_back(choice);
  }
  return choices;
}

bool ranks_before(const PlanChoice& a, const PlanChoice& b) {
  return std::make_tuple(a.mva.total_s, a.nodes, a.mva.workers + a.mva.servers, a.ranks_per_node, a.io) <
         std::make_tuple(b.mva.total_s, b.nodes, b.mva.workers + b.mva.servers, b.ranks_per_node, b.io);
}

// Within kPlanTolerance of the lowest total, the fewest nodes (the lowest total among them): ranked best first.
const PlanChoice& recommended(const std::vector<PlanChoice>& ranked) {
  const double within = ranked.front().mva.total_s * (1.0 + kPlanTolerance);
  const PlanChoice* chosen = &ranked.front();
  for (const PlanChoice& c : ranked) {
    if (c.mva.total_s > within) break;
    if (c.nodes < chosen->nodes) chosen = &c;
  }
  return *chosen;
}

// The recommendation, then the best of each other (S, I/O) pair, from choices ranked best first.
std::vector<PlanChoice> listed(const std::vector<PlanChoice>& ranked) {
  std::vector<PlanChoice> out = {recommended(ranked)};
  for (const PlanChoice& c : ranked) {
    if (out.size() == static_cast<std::size_t>(1 + kPlanRunnersUp)) break;
    const auto same_pair = [&](const PlanChoice& o) { return o.mva.servers == c.mva.servers && o.io == c.io; };
    if (std::none_of(out.begin(), out.end(), same_pair)) out.push_back(c);
  }
  return out;
}

void diagnose_choice(const Calibration& calibration, const Scenario& base, PlanChoice& choice) {
  const Scenario scenario = cell_scenario(base, choice.io, choice.ranks_per_node);
  choice.diagnosis = diagnose(step_costs(calibration, scenario, choice.mva.workers, choice.mva.servers), choice.mva);
}

// The choice's mva prediction again, with its intervals (the grid's predictions have none: a draw per grid point would
// multiply the search's time by the draws).
void add_choice_interval(const Calibration& calibration, const PlanRequest& request, PlanChoice& choice) {
  if (request.interval_samples < 2) return;
  PredictRequest single;
  single.scenario = cell_scenario(request.scenario, choice.io, choice.ranks_per_node);
  single.workers = {choice.mva.workers};
  single.servers = {choice.mva.servers};
  single.kinds = {Kind::kMva};
  single.sim = request.sim;
  single.interval_samples = request.interval_samples;
  choice.mva.interval = predict(calibration, single).front().interval;
}

void confirm_choice(const Calibration& calibration, const PlanRequest& request, PlanChoice& choice) {
  const Scenario scenario = cell_scenario(request.scenario, choice.io, choice.ranks_per_node);
  const StepCosts costs = step_costs(calibration, scenario, choice.mva.workers, choice.mva.servers);
  const double pushes = costs.steps_per_worker * costs.workers * costs.servers;
  if (pushes > request.sim_max_pushes) {
    choice.sim_note = "not simulated: " + std::to_string(static_cast<long long>(pushes)) +
                      " shard pushes, more than --sim-max-pushes";
    return;
  }
  try {
    choice.sim = simulate(costs, scenario, request.sim);
  } catch (const std::runtime_error& failure) {  // UserError or SystemError: the sim died, the plan stands
    choice.sim_note = std::string("the simulation failed: ") + failure.what();
  }
}

// The choices of BEST's I/O mode and ranks per node, ordered by S, then W.
std::vector<PlanChoice> surface_of(const std::vector<PlanChoice>& ranked, const PlanChoice& best) {
  std::vector<PlanChoice> surface;
  std::copy_if(ranked.begin(), ranked.end(), std::back_inserter(surface),
               [&](const PlanChoice& c) { return c.io == best.io && c.ranks_per_node == best.ranks_per_node; });
  std::sort(surface.begin(), surface.end(), [](const PlanChoice& a, const PlanChoice& b) {
    return std::make_pair(a.mva.servers, a.mva.workers) < std::make_pair(b.mva.servers, b.mva.workers);
  });
  return surface;
}

}  // namespace

Plan plan(const Calibration& calibration, const PlanRequest& request) {
  check_budget(request.scenario.platform, request.nodes);
  std::vector<PlanChoice> ranked;
  for (const PlanCell& cell : plan_grid(calibration, request.scenario, request.nodes)) {
    for (PlanChoice& choice : predict_cell(calibration, request.scenario, cell)) ranked.push_back(std::move(choice));
  }
  std::sort(ranked.begin(), ranked.end(), ranks_before);
  Plan out;
  if (ranked.empty()) throw UserError("--nodes " + std::to_string(request.nodes) + ": no configuration fits");
  out.searched = static_cast<int>(ranked.size());
  out.choices = listed(ranked);
  out.fastest = ranked.front();
  const auto study = std::find_if(ranked.begin(), ranked.end(), [](const PlanChoice& c) {
    return c.mva.servers == 1 && c.io == IoMode::kSequential;
  });
  PSBENCH_CHECK(study != ranked.end()) << "the grid holds no configuration of one server and sequential I/O";
  out.study = *study;
  out.surface = surface_of(ranked, out.choices.front());
  for (std::size_t i = 0; i < out.choices.size(); ++i) {
    diagnose_choice(calibration, request.scenario, out.choices[i]);
    if (static_cast<int>(i) < request.confirm) confirm_choice(calibration, request, out.choices[i]);
  }
  diagnose_choice(calibration, request.scenario, out.study);
  diagnose_choice(calibration, request.scenario, out.fastest);
  for (PlanChoice* choice : {&out.study, &out.fastest}) add_choice_interval(calibration, request, *choice);
  for (PlanChoice& choice : out.choices) add_choice_interval(calibration, request, choice);
  return out;
}

}  // namespace psbench::perf
