// Training in every mode on a Fashion-MNIST subset: the loss falls, the accuracy clears a real bar, every
// push is counted as an update, every sample is visited once per epoch, and async with one server and one
// worker reproduces the local trainer bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>

#include "train/results.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

// Checks a results document that every mode must satisfy (on rank 0, which holds it). Deterministic modes
// (sync, local) must lower the loss every epoch; async runs depend on message order, so only the fall over
// the whole run is required of them.
void expect_sound_training(const nlohmann::json& results, int workers, bool deterministic) {
  const auto& train = results["train"];
  const auto& epochs = results["epochs"];
  ASSERT_EQ(epochs.size(), static_cast<std::size_t>(kEpochs));
  for (std::size_t e = 1; deterministic && e < epochs.size(); ++e) {
    EXPECT_LT(epochs[e]["mean_loss"].get<double>(), epochs[e - 1]["mean_loss"].get<double>()) << "epoch " << e;
  }
  EXPECT_LT(train["final_loss"].get<double>(), 0.8 * epochs[0]["mean_loss"].get<double>());
  EXPECT_GE(train["test_accuracy"].get<double>(), kAccuracyBar);
  // Every sample once per epoch: each worker's visit counts equal the epoch count after every epoch, and the
  // partitions together hold the whole training split.
  EXPECT_EQ(train["visits"]["exact_epochs"], kEpochs);
  EXPECT_EQ(train["visits"]["min"], kEpochs);
  EXPECT_EQ(train["visits"]["max"], kEpochs);
  EXPECT_EQ(train["total_samples"], kSubsetSamples);
  EXPECT_EQ(train["samples"], static_cast<std::uint64_t>(kEpochs) * kSubsetSamples);
  for (const auto& epoch : epochs) EXPECT_EQ(epoch["samples"], kSubsetSamples);
  EXPECT_EQ(results["env"]["workers"], workers);
  std::uint64_t partition_sum = 0;
  for (const auto& rank : results["per_rank"]) {
    if (rank.contains("worker")) partition_sum += rank["worker"]["samples"].get<std::uint64_t>();
  }
  EXPECT_EQ(partition_sum, static_cast<std::uint64_t>(kSubsetSamples));
}

void expect_sound_async(const nlohmann::json& results, int servers, int workers) {
  expect_sound_training(results, workers, false);
  const auto& server = results["server"];
  // Each worker step pushes one shard to every server; each push is one update.
  EXPECT_EQ(server["updates"], results["train"]["pushes"]);
  EXPECT_EQ(server["updates"].get<std::uint64_t>(), results["train"]["steps"].get<std::uint64_t>() * servers);
  const auto hist = server["staleness"]["hist"].get<std::vector<std::uint64_t>>();
  EXPECT_EQ(std::accumulate(hist.begin(), hist.end(), std::uint64_t{0}), server["updates"].get<std::uint64_t>());
  if (workers == 1) {
    EXPECT_EQ(server["staleness"]["max"], 0);
    EXPECT_EQ(server["staleness"]["mean"], 0.0);
  }
  EXPECT_GT(server["utilization"].get<double>(), 0.0);
  EXPECT_LE(server["utilization"].get<double>(), 1.0);
}

TEST(TrainModes, AsyncWithOneServer) {
  const auto world = mpi::Communicator::world();
  const TrainOutcome outcome = run_training(world, small_run(Mode::kAsync, "async1"));
  if (world.rank() == 0) expect_sound_async(outcome.results, 1, world.size() - 1);
}

TEST(TrainModes, AsyncWithTwoServers) {
  const auto world = mpi::Communicator::world();
  if (world.size() < 3) GTEST_SKIP() << "two servers need at least three ranks";
  TrainOptions options = small_run(Mode::kAsync, "async2");
  options.servers = 2;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() == 0) expect_sound_async(outcome.results, 2, world.size() - 2);
}

TEST(TrainModes, AsyncOverMessagesOnly) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kAsync, "async_messages");
  options.servers = world.size() >= 3 ? 2 : 1;
  options.intra_node = IntraNode::kMessages;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() != 0) return;
  expect_sound_async(outcome.results, options.servers, world.size() - options.servers);
  EXPECT_EQ(outcome.results["config"]["intra_node"], "messages");
}

TEST(TrainModes, SyncAllreduce) {
  const auto world = mpi::Communicator::world();
  const TrainOutcome outcome = run_training(world, small_run(Mode::kSync, "sync"));
  if (world.rank() == 0) {
    expect_sound_training(outcome.results, world.size(), true);
    EXPECT_EQ(outcome.results["server"]["updates"], 0);
  }
}

// Over both intra-node paths: the shared window and messages.
TEST(TrainModes, AsyncOneServerOneWorkerEqualsLocalBitForBit) {
  const auto world = mpi::Communicator::world();
  const auto pair = first_ranks(world, 2);
  if (world.rank() >= 2) return;
  const auto alone = pair.split(pair.rank(), 0);
  // Warm-up on both sides, so that the scaled-gradient path is compared too.
  TrainOptions local_options = small_run(Mode::kLocal, "pair_local");
  local_options.warmup_steps = 10;
  local_options.momentum = kAsyncMomentum;  // the same SGD as the async runs
  std::optional<TrainOutcome> local;
  if (pair.rank() == 1) local = run_training(alone, local_options);
  for (const IntraNode path : {IntraNode::kSharedMemory, IntraNode::kMessages}) {
    SCOPED_TRACE(std::string(intra_node_name(path)));
    TrainOptions async_options = small_run(Mode::kAsync, "pair_async");
    async_options.warmup_steps = 10;
    async_options.intra_node = path;
    const TrainOutcome async = run_training(pair, async_options);
    if (!local) continue;
    ASSERT_EQ(async.final_parameters.size(), local->final_parameters.size());
    ASSERT_FALSE(local->final_parameters.empty());
    EXPECT_EQ(std::memcmp(async.final_parameters.data(), local->final_parameters.data(),
                          local->final_parameters.size() * sizeof(float)),
              0);
    EXPECT_EQ(local->results["train"]["parameter_checksum"], checksum_of(async.final_parameters));
  }
}

TEST(TrainModes, SyncOnOneRankEqualsLocalBitForBit) {
  const auto world = mpi::Communicator::world();
  const auto alone = first_ranks(world, 1);
  if (world.rank() != 0) return;
  const TrainOutcome sync = run_training(alone, small_run(Mode::kSync, "alone_sync"));
  const TrainOutcome local = run_training(alone, small_run(Mode::kLocal, "alone_local"));
  ASSERT_EQ(sync.final_parameters.size(), local.final_parameters.size());
  EXPECT_EQ(std::memcmp(sync.final_parameters.data(), local.final_parameters.data(),
                        local.final_parameters.size() * sizeof(float)),
            0);
}

TEST(TrainModes, LocalTrainerLowersTheLossAndEvaluatesEveryEpoch) {
  const auto world = mpi::Communicator::world();
  const auto alone = first_ranks(world, 1);
  if (world.rank() != 0) return;
  const TrainOutcome outcome = run_training(alone, small_run(Mode::kLocal, "local"));
  expect_sound_training(outcome.results, 1, true);
  const auto& epochs = outcome.results["epochs"];
  // The last epoch's mean loss is below 0.6 times the first epoch's (which already averages a falling curve)
  // and at least three times below ln(10) = 2.30, the loss of a uniform guess over ten classes.
  const double final_loss = outcome.results["train"]["final_loss"].get<double>();
  EXPECT_LT(final_loss, 0.6 * epochs[0]["mean_loss"].get<double>());
  EXPECT_LT(final_loss, std::log(10.0) / 3.0);
  for (const auto& epoch : epochs) EXPECT_GE(epoch["test_accuracy"].get<double>(), 0.5);
  EXPECT_EQ(outcome.results["server"]["updates"], 0);
}

}  // namespace
}  // namespace psbench::train::testing
