// Async training with bounded staleness (--staleness s, SSP: a server holds the reply to a worker that is more
// than s clocks ahead of the slowest) on the Fashion-MNIST subset, with 1 server + 2 workers and 2 servers +
// 2 workers, over both intra-node paths and with --pipeline: it trains to the fixture's accuracy bar, every
// server's staleness max is within the bound derived in src/ps/server.cpp ((2s + 1)(W - 1), or
// (2s + 2)(W - 1) + 1 with the pipeline), no reply went out while its worker led by more than s clocks, and the
// results carry each server's clocks (held replies and seconds, per worker too, and the largest spread). With
// --compress onebit the same holds: the servers bound the clocks of pushes whatever their encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "ps/staleness.hpp"
#include "train/results.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

constexpr int kWorkers = 2;

std::uint64_t staleness_bound(int s, bool pipeline) { return ps::staleness_bound(s, kWorkers, pipeline); }

void run_ssp(int servers, int s, IntraNode path, bool pipeline, const std::string& name,
             Compression compress = Compression::kNone) {
  const auto world = mpi::Communicator::world();
  if (world.size() < servers + kWorkers) GTEST_SKIP() << servers << " servers + " << kWorkers << " workers";
  const auto job = first_ranks(world, servers + kWorkers);
  if (world.rank() >= servers + kWorkers) return;
  TrainOptions options = small_run(Mode::kAsync, name);
  options.servers = servers;
  options.intra_node = path;
  options.pipeline = pipeline;
  options.staleness = s;
  options.compress = compress;
  const TrainOutcome outcome = run_training(job, options);
  if (job.rank() != 0) return;
  const nlohmann::json& results = outcome.results;
  EXPECT_EQ(results["config"]["staleness"], s);
  EXPECT_EQ(results["config"]["compress"], compress == Compression::kOneBit ? "onebit" : "none");
  EXPECT_EQ(results["env"]["workers"], kWorkers);
  const auto& train = results["train"];
  EXPECT_GE(train["test_accuracy"].get<double>(), kAccuracyBar);
  EXPECT_EQ(train["visits"]["exact_epochs"], kEpochs);
  EXPECT_EQ(train["samples"], static_cast<std::uint64_t>(kEpochs) * kSubsetSamples);
  EXPECT_EQ(results["server"]["updates"], train["pushes"]);
  EXPECT_LE(results["server"]["staleness"]["max"].get<std::uint64_t>(), staleness_bound(s, pipeline));
  int server_ranks = 0;
  for (const auto& rank : results["per_rank"]) {
    if (!rank.contains("server")) continue;
    ++server_ranks;
    const auto& server = rank["server"];
    EXPECT_LE(server["staleness"]["max"].get<std::uint64_t>(), staleness_bound(s, pipeline)) << "rank " << rank["rank"];
    ASSERT_TRUE(server.contains("clocks")) << "rank " << rank["rank"];
    const auto& clocks = server["clocks"];
    EXPECT_LE(clocks["max_lead"].get<std::uint64_t>(), static_cast<std::uint64_t>(s)) << "rank " << rank["rank"];
    EXPECT_LE(clocks["max_clock_spread"].get<std::uint64_t>(), static_cast<std::uint64_t>(s) + 1);
    const auto by_worker = clocks["held_s_by_worker"].get<std::vector<double>>();
    ASSERT_EQ(by_worker.size(), static_cast<std::size_t>(kWorkers));
    EXPECT_NEAR(std::accumulate(by_worker.begin(), by_worker.end(), 0.0), clocks["held_s"].get<double>(), 1e-9);
    // At s = 0 the first push a server takes is a clock ahead of the other worker: its reply is held.
    if (s == 0) {
      EXPECT_GT(clocks["held_replies"].get<std::uint64_t>(), 0U) << "rank " << rank["rank"];
    }
  }
  EXPECT_EQ(server_ranks, servers);
  std::cout << servers << " server(s), s = " << s << (pipeline ? ", pipelined" : "") << ": staleness max "
            << results["server"]["staleness"]["max"] << " (bound " << staleness_bound(s, pipeline)
            << "), test accuracy " << train["test_accuracy"] << "\n";
}

TEST(TrainStaleness, ZeroOneServer) { run_ssp(1, 0, IntraNode::kSharedMemory, false, "ssp0_1s"); }
TEST(TrainStaleness, ZeroTwoServers) { run_ssp(2, 0, IntraNode::kSharedMemory, false, "ssp0_2s"); }
TEST(TrainStaleness, TwoOneServer) { run_ssp(1, 2, IntraNode::kSharedMemory, false, "ssp2_1s"); }
TEST(TrainStaleness, TwoTwoServers) { run_ssp(2, 2, IntraNode::kSharedMemory, false, "ssp2_2s"); }
TEST(TrainStaleness, ZeroTwoServersMessages) { run_ssp(2, 0, IntraNode::kMessages, false, "ssp0_2s_messages"); }
TEST(TrainStaleness, OnePipelinedOneServer) { run_ssp(1, 1, IntraNode::kSharedMemory, true, "ssp1_1s_pipe"); }
TEST(TrainStaleness, ZeroTwoServersOneBit) {
  run_ssp(2, 0, IntraNode::kMessages, false, "ssp0_2s_onebit", Compression::kOneBit);
}
TEST(TrainStaleness, TwoOneServerOneBit) {
  run_ssp(1, 2, IntraNode::kMessages, false, "ssp2_1s_onebit", Compression::kOneBit);
}

// Without --staleness the results still carry the clocks, and config.staleness is -1 (unbounded).
TEST(TrainStaleness, UnboundedRecordsTheClocks) {
  const auto world = mpi::Communicator::world();
  const auto job = first_ranks(world, 1 + kWorkers);
  if (world.rank() >= 1 + kWorkers) return;
  TrainOptions options = small_run(Mode::kAsync, "ssp_unbounded");
  options.epochs = 1;
  const TrainOutcome outcome = run_training(job, options);
  if (job.rank() != 0) return;
  EXPECT_EQ(outcome.results["config"]["staleness"], -1);
  for (const auto& rank : outcome.results["per_rank"]) {
    if (!rank.contains("server")) continue;
    ASSERT_TRUE(rank["server"].contains("clocks"));
    EXPECT_EQ(rank["server"]["clocks"]["held_replies"], 0);
    EXPECT_EQ(rank["server"]["clocks"]["held_s"], 0.0);
  }
}

}  // namespace
}  // namespace psbench::train::testing
