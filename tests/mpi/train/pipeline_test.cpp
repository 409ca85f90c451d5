// Async training with --pipeline (each step's push and pull travel while the worker computes the next step) on
// the Fashion-MNIST subset, over both intra-node paths and with one and two servers: it trains, every push but
// each server's first is at least one version stale (the versions one step older), each worker's exchange
// reports wait_s <= wall_s, one worker trains identically on both paths, a diverging run still stops every rank,
// and --pipeline outside async mode is one error. The exact staleness bound (2W-1 with workers served in turn)
// is checked in tests/mpi/ps/pipeline_test.cpp, where the turn order is fixed; here workers race, and nothing
// bounds how often one worker pushes while another is descheduled.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/collective_error.hpp"
#include "train/results.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

// Every worker's exchange timing: present, wall_s > 0 and 0 <= wait_s <= wall_s; equal without the pipeline,
// where the worker waits for the whole exchange.
void expect_exchange_timings(const nlohmann::json& results, bool pipeline) {
  int workers = 0;
  for (const auto& rank : results["per_rank"]) {
    if (!rank.contains("worker")) continue;
    ++workers;
    ASSERT_TRUE(rank["worker"].contains("exchange")) << "rank " << rank["rank"];
    const auto& exchange = rank["worker"]["exchange"];
    const double wall = exchange["wall_s"].get<double>();
    const double wait = exchange["wait_s"].get<double>();
    EXPECT_GT(wall, 0.0) << "rank " << rank["rank"];
    EXPECT_GE(wait, 0.0) << "rank " << rank["rank"];
    EXPECT_LE(wait, wall) << "rank " << rank["rank"];
    if (!pipeline) {
      EXPECT_EQ(wait, wall) << "rank " << rank["rank"] << ": without the pipeline nothing is hidden";
    }
    const double hidden = exchange["hidden_fraction"].get<double>();
    EXPECT_GE(hidden, 0.0);
    EXPECT_LE(hidden, 1.0);
  }
  EXPECT_GT(workers, 0);
}

void expect_sound_pipelined(const nlohmann::json& results, int servers, int workers) {
  const auto& train = results["train"];
  const auto& epochs = results["epochs"];
  ASSERT_EQ(epochs.size(), static_cast<std::size_t>(kEpochs));
  EXPECT_EQ(results["config"]["pipeline"], true);
  EXPECT_EQ(results["env"]["workers"], workers);
  const double final_loss = train["final_loss"].get<double>();
  EXPECT_TRUE(std::isfinite(final_loss));
  EXPECT_LT(final_loss, 0.8 * epochs[0]["mean_loss"].get<double>());
  EXPECT_GE(train["test_accuracy"].get<double>(), kAccuracyBar);
  EXPECT_EQ(train["visits"]["exact_epochs"], kEpochs);
  EXPECT_EQ(train["samples"], static_cast<std::uint64_t>(kEpochs) * kSubsetSamples);
  // Each worker step pushes one shard to every server; each push is one update.
  const auto& server = results["server"];
  EXPECT_EQ(server["updates"], train["pushes"]);
  EXPECT_EQ(server["updates"].get<std::uint64_t>(), train["steps"].get<std::uint64_t>() * servers);
  // A push carries the versions of the weights it was computed from, one step older than without the pipeline:
  // the pusher's own previous push lies between, so only a server's very first push is fresh.
  const auto hist = server["staleness"]["hist"].get<std::vector<std::uint64_t>>();
  EXPECT_EQ(std::accumulate(hist.begin(), hist.end(), std::uint64_t{0}), server["updates"].get<std::uint64_t>());
  ASSERT_FALSE(hist.empty());
  EXPECT_EQ(hist[0], static_cast<std::uint64_t>(servers)) << "pushes 0 versions stale, over all servers";
  int server_ranks = 0;
  for (const auto& rank : results["per_rank"]) {
    if (!rank.contains("server")) continue;
    ++server_ranks;
    const auto shard_hist = rank["server"]["staleness"]["hist"].get<std::vector<std::uint64_t>>();
    ASSERT_FALSE(shard_hist.empty());
    EXPECT_EQ(shard_hist[0], 1U) << "rank " << rank["rank"];
    EXPECT_GE(rank["server"]["staleness"]["max"].get<std::uint64_t>(), 1U) << "rank " << rank["rank"];
  }
  EXPECT_EQ(server_ranks, servers);
  // For the record: the bound with workers served in turn, which racing workers may exceed.
  std::cout << servers << " server(s), " << workers << " worker(s): staleness max " << server["staleness"]["max"]
            << ", mean " << server["staleness"]["mean"] << " (2W-1 = " << 2 * workers - 1 << "), test accuracy "
            << train["test_accuracy"] << "\n";
  expect_exchange_timings(results, true);
}

void run_pipelined(int servers, IntraNode path, const std::string& name) {
  const auto world = mpi::Communicator::world();
  if (servers >= world.size()) GTEST_SKIP() << servers << " servers need more ranks";
  TrainOptions options = small_run(Mode::kAsync, name);
  options.servers = servers;
  options.intra_node = path;
  options.pipeline = true;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() != 0) return;
  expect_sound_pipelined(outcome.results, servers, world.size() - servers);
  EXPECT_EQ(outcome.results["config"]["intra_node"], intra_node_name(path));
}

TEST(TrainPipeline, OneServerSharedMemory) { run_pipelined(1, IntraNode::kSharedMemory, "pipe_1s_shared"); }

TEST(TrainPipeline, OneServerMessages) { run_pipelined(1, IntraNode::kMessages, "pipe_1s_messages"); }

TEST(TrainPipeline, TwoServersSharedMemory) { run_pipelined(2, IntraNode::kSharedMemory, "pipe_2s_shared"); }

TEST(TrainPipeline, TwoServersMessages) { run_pipelined(2, IntraNode::kMessages, "pipe_2s_messages"); }

// Without the pipeline the worker waits for its whole exchange: wait_s equals wall_s.
TEST(TrainPipeline, WithoutThePipelineNothingIsHidden) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kAsync, "no_pipe_timing");
  options.epochs = 1;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() == 0) expect_exchange_timings(outcome.results, false);
}

// With one worker the pipelined schedule does not depend on timing (step t is computed on the weights after
// push t-2, which the one server applied in order), so both intra-node paths train bit for bit alike: the
// shared window (where the model computes its gradient in the window) and messages.
TEST(TrainPipeline, OneWorkerTrainsAlikeOnBothPaths) {
  const auto world = mpi::Communicator::world();
  const auto pair = first_ranks(world, 2);
  if (world.rank() >= 2) return;
  std::vector<std::vector<float>> finals;  // on the worker, rank 1, which evaluates
  for (const IntraNode path : {IntraNode::kSharedMemory, IntraNode::kMessages}) {
    SCOPED_TRACE(std::string(intra_node_name(path)));
    TrainOptions options = small_run(Mode::kAsync, "pipe_pair");
    options.intra_node = path;
    options.pipeline = true;
    options.warmup_steps = 10;  // the scaled-gradient path too
    TrainOutcome outcome = run_training(pair, options);
    if (pair.rank() == 1) finals.push_back(std::move(outcome.final_parameters));
    if (pair.rank() != 0) continue;
    // One worker: its first push is fresh, every later one exactly one version stale.
    const auto& staleness = outcome.results["server"]["staleness"];
    const auto updates = outcome.results["server"]["updates"].get<std::uint64_t>();
    EXPECT_EQ(staleness["hist"], (std::vector<std::uint64_t>{1, updates - 1}));
    EXPECT_EQ(staleness["max"], 1);
    EXPECT_GE(outcome.results["train"]["test_accuracy"].get<double>(), kAccuracyBar);
  }
  if (pair.rank() != 1) return;
  ASSERT_EQ(finals.size(), 2U);
  ASSERT_FALSE(finals[0].empty());
  ASSERT_EQ(finals[0].size(), finals[1].size());
  EXPECT_EQ(std::memcmp(finals[0].data(), finals[1].data(), finals[0].size() * sizeof(float)), 0);
}

TEST(TrainPipeline, DivergingRunStopsEveryRank) {
  for (const IntraNode path : {IntraNode::kSharedMemory, IntraNode::kMessages}) {
    SCOPED_TRACE(std::string(intra_node_name(path)));
    TrainOptions options = small_run(Mode::kAsync, "pipe_diverged");
    options.intra_node = path;
    options.pipeline = true;
    options.learning_rate = 1e9;
    options.epochs = 2;
    std::filesystem::remove(options.out_path);
    try {
      run_training(mpi::Communicator::world(), options);
      ADD_FAILURE() << "expected the run to diverge";
    } catch (const mpi::CollectiveUserError& error) {
      EXPECT_NE(std::string(error.what()).find("the run diverged; try a lower --lr (now 1e+09)"), std::string::npos)
          << error.what();
    }
    EXPECT_FALSE(std::filesystem::exists(options.out_path)) << options.out_path;
  }
}

void expect_refused(const mpi::Communicator& comm, Mode mode) {
  TrainOptions options = small_run(mode, "pipe_not_async");
  options.pipeline = true;
  try {
    run_training(comm, options);
    ADD_FAILURE() << "expected --pipeline to be refused in --mode " << mode_name(mode);
  } catch (const mpi::CollectiveUserError& error) {
    EXPECT_NE(std::string(error.what()).find("--pipeline applies to --mode async only"), std::string::npos)
        << error.what();
  }
}

TEST(TrainPipeline, OutsideAsyncModeIsOneError) {
  const auto world = mpi::Communicator::world();
  expect_refused(world, Mode::kSync);
  const auto alone = first_ranks(world, 1);
  if (world.rank() == 0) expect_refused(alone, Mode::kLocal);
}

}  // namespace
}  // namespace psbench::train::testing
