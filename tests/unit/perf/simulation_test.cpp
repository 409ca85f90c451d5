// The SimGrid simulation against exact MVA where their assumptions coincide (exponential times, a core per
// rank, no network), and against the closed form of the sequential loader.
#include "perf/sim/simulation.hpp"

#include <gtest/gtest.h>

#include "perf/closed_forms.hpp"
#include "perf/mva.hpp"
#include "perf/mva_prediction.hpp"

namespace psbench::perf {
namespace {

Scenario this_machine() {
  Scenario s;
  s.platform.kind = PlatformKind::kThis;
  s.platform.text = "this";
  s.platform.cores_per_node = 64;
  return s;
}

StepCosts costs_for(int workers, int servers, double steps) {
  StepCosts c;
  c.workers = workers;
  c.servers = servers;
  c.cores_per_node = 64;  // a core per rank: no CPU sharing
  c.ranks_per_node = workers + servers;
  c.compute_s = 0.010;
  c.exchange_s = 0.001;
  c.exchange_software_s = 0.001;
  c.service_s = 0.002;
  c.steps_per_worker = steps;
  c.read_bytes = 1e6;
  c.read_open_s = 0.01;
  c.disk_sequential_Bps = 1e8;
  c.disk_parallel_Bps = 1e8;
  c.training_samples = steps * workers * 64;
  c.parameter_bytes = 4e5;
  return c;
}

TEST(Simulation, AgreesWithMvaForExponentialTimes) {
  SimOptions options;
  options.times = TimeDistribution::kExponential;
  for (const int workers : {1, 2, 4, 8, 12}) {
    const StepCosts costs = costs_for(workers, 1, 4000.0 / workers + 500);
    const Prediction sim = simulate(costs, this_machine(), options);
    const MvaPoint exact = solve_mva(configuration_network(costs, 1.0), static_cast<std::size_t>(workers)).back();
    EXPECT_NEAR(sim.updates_per_s, exact.throughput, 0.05 * exact.throughput) << workers << " workers";
    EXPECT_NEAR(sim.server_utilization, exact.utilization.front(), 0.05) << workers << " workers";
  }
}

TEST(Simulation, TwoShardsLieBetweenTheForkJoinApproximations) {
  SimOptions options;
  options.times = TimeDistribution::kExponential;
  const StepCosts costs = costs_for(6, 2, 1500);
  const Prediction sim = simulate(costs, this_machine(), options);
  const double lockstep = solve_mva(configuration_network(costs, 1.0, 1.0, ShardModel::kLockstep), 6).back().throughput;
  const double sequential =
      solve_mva(configuration_network(costs, 1.0, 1.0, ShardModel::kSequential), 6).back().throughput;
  // Independent exponential services make the fork-join slower than lockstep, faster than visiting in turn.
  EXPECT_LT(sim.updates_per_s, lockstep * 1.01);
  EXPECT_GT(sim.updates_per_s, sequential * 0.99);
}

TEST(Simulation, TwoShardsWithFixedTimesMoveInLockstep) {
  const StepCosts costs = costs_for(8, 2, 1000);
  const Prediction sim = simulate(costs, this_machine(), {});  // calibrated times with cv 0: fixed
  // Fixed times reach the asymptotic bound of one queue of D_s: min(W / (Z + D), 1 / D) = min(8 / 13 ms, 1 / 2 ms).
  const AsymptoticBounds bounds = asymptotic_bounds(configuration_network(costs, 1.0, 1.0, ShardModel::kLockstep), 8);
  EXPECT_NEAR(bounds.throughput_upper, 500.0, 1e-9);
  EXPECT_NEAR(sim.updates_per_s, bounds.throughput_upper, 0.01 * bounds.throughput_upper);
}

TEST(Simulation, SequentialLoaderPassesTheToken) {
  Scenario scenario = this_machine();
  scenario.io = IoMode::kSequential;
  const StepCosts costs = costs_for(4, 1, 10);
  const Prediction sim = simulate(costs, scenario, {});
  EXPECT_NEAR(sim.init_io_s, revised_init_io(costs, IoMode::kSequential), 1e-9);  // 4 x (0.01 + 1e6 / 1e8)
  scenario.io = IoMode::kParallel;
  const Prediction parallel = simulate(costs, scenario, {});
  EXPECT_NEAR(parallel.init_io_s, revised_init_io(costs, IoMode::kParallel), 1e-9);  // 0.01 + 4e6 / 1e8
}

// 14 ranks on 2 cores: perf::SharedCpu shares them as SimGrid's CPU model would, so every measure is the same.
TEST(Simulation, SharedCpuMatchesSimGridsCpuModelOnACrowdedHost) {
  Scenario scenario = this_machine();
  scenario.platform.cores_per_node = 2;
  StepCosts costs = costs_for(12, 2, 40);
  costs.cores_per_node = 2;
  costs.compute_cv = 0.3;
  costs.service_cv = 0.2;
  for (const TimeDistribution times : {TimeDistribution::kCalibrated, TimeDistribution::kExponential}) {
    SimOptions fast;
    fast.times = times;
    SimOptions reference = fast;
    reference.cpu = CpuModel::kSimGridCpu;
    const Prediction a = simulate(costs, scenario, fast);
    const Prediction b = simulate(costs, scenario, reference);
    ASSERT_GT(b.compute_s, 40 * costs.compute_s * 12 / 2 * 0.5);  // the cores are shared: far slower than alone
    EXPECT_NEAR(a.compute_s, b.compute_s, 1e-6 * b.compute_s);
    EXPECT_NEAR(a.init_io_s, b.init_io_s, 1e-9);
    EXPECT_NEAR(a.server_utilization, b.server_utilization, 1e-6);
    EXPECT_NEAR(a.staleness_mean, b.staleness_mean, 1e-9);
  }
}

// A rack of 1 Gbit/s nodes, one rank per node: the server alone on node 0 takes each push (over the worker's
// and its own link) and sends the reply before the next, so one update costs two transfers of the gradient
// on the slower of the two links. A 10 Gbit/s server link cannot make a 1 Gbit/s worker link faster; a
// 0.5 Gbit/s one halves the rate.
TEST(Simulation, RackServerLinkCountsOnlyWhereItIsTheSlower) {
  auto rack_throughput = [](const std::string& platform) {
    Scenario scenario;
    scenario.platform = parse_platform(platform, 64);
    scenario.ranks_per_node = 1;
    StepCosts costs = costs_for(3, 1, 60);
    costs.nodes = 4;
    costs.ranks_per_node = 1;
    costs.parameter_bytes = 4e6;  // 32 ms at 1 Gbit/s each way
    costs.link_s = costs.parameter_bytes / scenario.platform.server_link_Bps;
    costs.exchange_software_s = 0.0;
    return simulate(costs, scenario, {}).updates_per_s;
  };
  const double same = rack_throughput("rack:4:1");
  const double fast = rack_throughput("rack:4:1:server=10");
  const double slow = rack_throughput("rack:4:1:server=0.5");
  const double cycle = 2.0 * (0.032 + 2 * 50e-6) + 0.002;  // push and reply on 1 Gbit/s, latency both ways, D_s
  EXPECT_NEAR(same, 1.0 / cycle, 0.02 / cycle);            // 3 workers keep the server busy
  EXPECT_NEAR(fast, same, 1e-6 * same);
  const double slow_cycle = 2.0 * (0.064 + 2 * 50e-6) + 0.002;
  EXPECT_NEAR(slow, 1.0 / slow_cycle, 0.02 / slow_cycle);
}

// The server's receive ring (K = 16 chunks) on full-duplex links: a shard of N = 29 chunks (7.45 MB) is pushed,
// the reply starts once K / N of it has crossed and runs beside its rest, so one update holds the links for
// (1 + K / N) transfers, not 2; a shard of at most K chunks still costs push then pull.
TEST(Simulation, RackPullOverlapsThePushTailBeyondTheRing) {
  EXPECT_DOUBLE_EQ(shard_link_transfers(4.0 * 65536 * 16), 2.0);
  EXPECT_DOUBLE_EQ(shard_link_transfers(4.0 * 65536), 2.0);
  EXPECT_DOUBLE_EQ(shard_link_transfers(4.0 * 1863690), 1.0 + 16.0 / 29.0);
  EXPECT_DOUBLE_EQ(shard_link_transfers(4.0 * 65536 * 256), 1.0 + 16.0 / 256.0);
  Scenario scenario;
  scenario.platform = parse_platform("rack:4:1", 64);
  scenario.ranks_per_node = 1;
  StepCosts costs = costs_for(3, 1, 60);
  costs.nodes = 4;
  costs.ranks_per_node = 1;
  costs.parameter_bytes = 4.0 * 1863690;  // 59.6 ms at 1 Gbit/s each way
  costs.link_s = costs.parameter_bytes / scenario.platform.server_link_Bps;
  costs.link_transfers = shard_link_transfers(costs.parameter_bytes);
  costs.exchange_software_s = 0.0;
  const double cycle = (1.0 + 16.0 / 29.0) * costs.link_s + 2 * 2 * 50e-6 + 0.002;      // + latencies, D_s
  EXPECT_NEAR(simulate(costs, scenario, {}).updates_per_s, 1.0 / cycle, 0.02 / cycle);  // 3 workers: saturated
  EXPECT_NEAR(costs.server_demand_s(), 0.002 + (1.0 + 16.0 / 29.0) * costs.link_s, 1e-12);
}

TEST(Simulation, StalenessIsOthersUpdatesWithoutQueueing) {
  const StepCosts costs = costs_for(4, 1, 200);
  const Prediction sim = simulate(costs, this_machine(), {});
  // Fixed times and one server: in steady state each push meets the 3 others' updates since its pull.
  EXPECT_NEAR(sim.staleness_mean, 3.0, 0.1);
}

// --pipeline with fixed times and a core per rank: one worker's cycle is max(t_fb + t_pp, t_pp + D_s) = 11 ms
// (t_pp is all software here: it stays on the worker's core), as the closed form and MVA say, and each push
// is one version old (its own previous update lies behind it).
TEST(Simulation, PipelineAgreesWithTheClosedFormAndMva) {
  StepCosts costs = costs_for(1, 1, 2000);
  costs.pipeline = true;
  const Prediction sim = simulate(costs, this_machine(), {});
  EXPECT_NEAR(sim.updates_per_s, 1.0 / 0.011, 0.01 / 0.011);
  EXPECT_NEAR(predict_ideal(costs).updates_per_s, 1.0 / 0.011, 1e-9);
  EXPECT_NEAR(sim.staleness_mean, 1.0, 0.01);
  // Four workers: still far from the server's bound (1 / 2 ms), each cycle 11 ms; a push meets the 3 others'
  // updates and 4 more for the cycle it waited (closed_forms, StepCosts::pipeline_staleness).
  costs = costs_for(4, 1, 1000);
  costs.pipeline = true;
  const Prediction four = simulate(costs, this_machine(), {});
  EXPECT_NEAR(four.updates_per_s, 4.0 / 0.011, 0.03 * 4.0 / 0.011);
  EXPECT_NEAR(four.staleness_mean, 7.0, 0.5);
}

// --staleness: with random times the fastest worker waits for the slowest whenever it leads by more than S
// clocks, so a bound costs throughput, and no update is staler than (2S + 1)(W - 1) versions on average.
TEST(Simulation, StalenessBoundHoldsRepliesAndCostsThroughput) {
  SimOptions options;
  options.times = TimeDistribution::kExponential;
  StepCosts costs = costs_for(4, 1, 400);
  const Prediction unbounded = simulate(costs, this_machine(), options);
  costs.staleness = 0;
  const Prediction bulk = simulate(costs, this_machine(), options);
  costs.staleness = 4;
  const Prediction loose = simulate(costs, this_machine(), options);
  EXPECT_LT(bulk.updates_per_s, 0.9 * unbounded.updates_per_s);
  EXPECT_LT(bulk.updates_per_s, loose.updates_per_s);
  EXPECT_LE(loose.updates_per_s, unbounded.updates_per_s * 1.001);
  EXPECT_LE(bulk.staleness_mean, 3.0);
  EXPECT_GT(bulk.staleness_mean, 0.0);
}

}  // namespace
}  // namespace psbench::perf
