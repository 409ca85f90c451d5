// model plan: its grid, its recommendation against predict over the same grid, and the bottleneck in words
// from the model's utilisations and phases.
#include "perf/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "perf/plan_grid.hpp"
#include "perf/predict.hpp"
#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

using test_support::two_core_calibration;

Scenario plan_scenario(const std::string& platform) {
  Scenario s;
  s.model = "mlp:64";
  s.samples = 6400;
  s.platform = parse_platform(platform, 2);
  return s;
}

PlanRequest request_on(const std::string& platform, int nodes) {
  PlanRequest request;
  request.scenario = on(platform);
  request.nodes = nodes;
  request.confirm = 0;
  return request;
}

// A rack of 4 two-core nodes: r is 1, 2 or 4; S 1, 2, 4, ...; the knee at S = 1, about (t_fb + t_pp + D_s) / D_s
// = 13 / 2 with the link's share, lies between 6 and 7 and brings in 5 to 8.
TEST(PlanGrid, PowersOfTwoTheKneesNeighboursAndTheMostThatFit) {
  const std::vector<PlanCell> cells = plan_grid(two_core_calibration(), plan_scenario("rack:4:10"), 4);
  const auto cell = [&](int servers, int r, IoMode io) {
    return *std::find_if(cells.begin(), cells.end(), [&](const PlanCell& c) {
      return c.servers == servers && c.ranks_per_node == r && c.io == io;
    });
  };
  // The most that fit at r = 1, 2, 4 (3, 7, 15), each where it fits this r too.
  EXPECT_EQ(cell(1, 2, IoMode::kSequential).workers, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(cell(1, 4, IoMode::kParallel).workers, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 15}));
  EXPECT_EQ(cell(2, 1, IoMode::kSequential).workers, (std::vector<int>{1, 2}));  // 4 nodes, 1 rank each
  EXPECT_TRUE(std::none_of(cells.begin(), cells.end(), [](const PlanCell& c) { return c.ranks_per_node > 4; }));
  EXPECT_TRUE(std::none_of(cells.begin(), cells.end(), [](const PlanCell& c) { return c.servers > 8; }));
}

TEST(PlanGrid, ThisIsOneNodeOfUpToTwiceItsCores) {
  const std::vector<PlanCell> cells = plan_grid(two_core_calibration(), plan_scenario("this"), 1);
  ASSERT_EQ(cells.size(), 4U);  // S = 1 or 2, two I/O modes
  EXPECT_EQ(cells[0].workers, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(cells[2].workers, (std::vector<int>{1, 2}));
}

// Every configuration of the grid as predict's mva gives it, with the nodes it takes.
std::vector<std::pair<Prediction, int>> predict_grid(const Calibration& calibration, const PlanRequest& request) {
  std::vector<std::pair<Prediction, int>> out;
  for (const PlanCell& cell : plan_grid(calibration, request.scenario, request.nodes)) {
    const PredictRequest predict_request{
        cell_scenario(request.scenario, cell.io, cell.ranks_per_node), cell.workers, {cell.servers}, {Kind::kMva}, {}};
    for (const Prediction& p : predict(calibration, predict_request))
      out.emplace_back(p, nodes_for(request.scenario.platform, p.workers + p.servers, cell.ranks_per_node));
  }
  return out;
}

// The fastest is predict's lowest total on the grid; the recommendation takes the fewest nodes within 1% of it.
TEST(Plan, RecommendsTheBestOfPredictOverTheSameGrid) {
  const Calibration calibration = two_core_calibration();
  for (const char* platform : {"rack:4:10", "this"}) {
    const PlanRequest request = request_on(platform, platform == std::string("this") ? 1 : 4);
    const Plan result = plan(calibration, request);
    const auto grid = predict_grid(calibration, request);
    EXPECT_EQ(result.searched, static_cast<int>(grid.size())) << platform;
    double lowest = 1e300;
    for (const auto& [p, nodes] : grid) lowest = std::min(lowest, p.total_s);
    EXPECT_DOUBLE_EQ(result.fastest.mva.total_s, lowest) << platform;
    int fewest = 1 << 30;
    for (const auto& [p, nodes] : grid)
      if (p.total_s <= lowest * (1.0 + kPlanTolerance)) fewest = std::min(fewest, nodes);
    double best = 1e300;
    for (const auto& [p, nodes] : grid)
      if (nodes == fewest && p.total_s <= lowest * (1.0 + kPlanTolerance)) best = std::min(best, p.total_s);
    const PlanChoice& chosen = result.choices.front();
    EXPECT_EQ(chosen.nodes, fewest) << platform;
    EXPECT_DOUBLE_EQ(chosen.mva.total_s, best) << platform;
    for (std::size_t i = 2; i < result.choices.size(); ++i)
      EXPECT_GE(result.choices[i].mva.total_s, result.choices[i - 1].mva.total_s) << platform;
    EXPECT_EQ(result.study.mva.servers, 1);
    EXPECT_EQ(result.study.io, IoMode::kSequential);
    EXPECT_GE(result.study.mva.total_s, lowest);
  }
}

// The surface is every configuration of the grid at the recommendation's I/O mode and ranks per node, as predict
// gives it, ordered by S, then W, the recommendation among them.
TEST(Plan, SurfaceIsTheGridAtTheRecommendationsIoAndRanksPerNode) {
  const Calibration calibration = two_core_calibration();
  const PlanRequest request = request_on("rack:4:10", 4);
  const Plan result = plan(calibration, request);
  const PlanChoice& best = result.choices.front();
  std::vector<std::pair<int, int>> expected;
  for (const PlanCell& cell : plan_grid(calibration, request.scenario, request.nodes))
    if (cell.io == best.io && cell.ranks_per_node == best.ranks_per_node)
      for (const int w : cell.workers) expected.emplace_back(cell.servers, w);
  std::sort(expected.begin(), expected.end());
  ASSERT_EQ(result.surface.size(), expected.size());
  bool holds_best = false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const PlanChoice& c = result.surface[i];
    EXPECT_EQ(std::make_pair(c.mva.servers, c.mva.workers), expected[i]);
    EXPECT_EQ(c.io, best.io);
    EXPECT_EQ(c.ranks_per_node, best.ranks_per_node);
    holds_best = holds_best || (c.mva.workers == best.mva.workers && c.mva.servers == best.mva.servers &&
                                c.mva.total_s == best.mva.total_s);
  }
  EXPECT_TRUE(holds_best);
}

TEST(Plan, SimulatesTheConfirmedWithinItsBudget) {
  PlanRequest request = request_on("this", 1);
  request.confirm = 1;
  const Plan result = plan(two_core_calibration(), request);
  ASSERT_TRUE(result.choices.front().sim.has_value());
  EXPECT_EQ(result.choices.front().sim->workers, result.choices.front().mva.workers);
  EXPECT_FALSE(result.choices.back().sim.has_value());  // beyond --confirm
  EXPECT_TRUE(result.choices.back().sim_note.empty());
  request.sim_max_pushes = 10.0;  // 6400 samples / 64 per step: every configuration pushes at least 100 shards
  EXPECT_NE(plan(two_core_calibration(), request).choices.front().sim_note.find("more than --sim-max-pushes"),
            std::string::npos);
}

TEST(Plan, RefusesABudgetOfNoNodesOrMoreThanThePlatformHas) {
  EXPECT_THROW(plan(two_core_calibration(), request_on("rack:4:10", 0)), UserError);
  EXPECT_THROW(plan(two_core_calibration(), request_on("this", 2)), UserError);
  EXPECT_THROW(plan(two_core_calibration(), request_on("rack:4:10", 5)), UserError);
}

// Eight workers of t_fb 10 ms and one server of D_s 2 ms.
StepCosts server_bound_costs() { return StepCosts{.workers = 8, .servers = 1, .compute_s = 0.010, .service_s = 0.002}; }

Prediction predicted_phases(double setup, double init_io, double compute, double pushes_per_s) {
  Prediction p;
  p.workers = 8;
  p.init_io_s = init_io;
  p.compute_s = compute;
  p.total_s = setup + init_io + compute;
  p.updates_per_s = pushes_per_s;
  p.knee_workers = 6.5;
  return p;
}

// 450 pushes/s x 2 ms: the server's CPU is 90% busy; with a link of 3 ms per update the link is 135% (capped).
TEST(Bottleneck, TheLongestPhaseThenTheBusiestResource) {
  StepCosts costs = server_bound_costs();
  const Diagnosis cpu = diagnose(costs, predicted_phases(0.1, 0.2, 1.0, 450.0));
  EXPECT_EQ(cpu.bottleneck, Bottleneck::kServerCpu);
  EXPECT_DOUBLE_EQ(cpu.server_cpu, 0.9);
  EXPECT_NEAR(cpu.phase_share, 1.0 / 1.3, 1e-12);
  EXPECT_TRUE(cpu.beyond_knee);
  EXPECT_EQ(bottleneck_words(cpu, predicted_phases(0.1, 0.2, 1.0, 450.0), IoMode::kSequential),
            "the servers' CPU: updates keep a server busy 90% of the time, 8 workers beyond the knee of 6.5; "
            "add servers");
  EXPECT_EQ(diagnose(costs, predicted_phases(0.1, 2.0, 1.0, 450.0)).bottleneck, Bottleneck::kStartupRead);
  EXPECT_EQ(diagnose(costs, predicted_phases(3.0, 2.0, 1.0, 450.0)).bottleneck, Bottleneck::kSetup);
  EXPECT_EQ(diagnose(costs, predicted_phases(0.1, 0.2, 1.0, 300.0)).bottleneck, Bottleneck::kWorkers);  // 60% busy
  costs.link_s = 0.0015;  // two transfers of 1.5 ms: 3 ms of link per update
  costs.link_transfers = 2.0;
  const Diagnosis link = diagnose(costs, predicted_phases(0.1, 0.2, 1.0, 300.0));
  EXPECT_EQ(link.bottleneck, Bottleneck::kServerLink);
  EXPECT_DOUBLE_EQ(link.server_link, 0.9);
}

// Nine ranks on one 2-core node: 150 pushes/s x (10 + 2 ms) / 2 cores = 90% of the cores, the server 30%.
TEST(Bottleneck, SharedCoresWhenTheyAreBusierThanTheServer) {
  StepCosts costs = server_bound_costs();
  costs.nodes = 1;
  costs.cores_per_node = 2;
  costs.ranks_per_node = 9;
  const Diagnosis d = diagnose(costs, predicted_phases(0.1, 0.2, 1.0, 150.0));
  EXPECT_EQ(d.bottleneck, Bottleneck::kSharedCores);
  EXPECT_DOUBLE_EQ(d.cores, 0.9);
}

}  // namespace
}  // namespace psbench::perf
