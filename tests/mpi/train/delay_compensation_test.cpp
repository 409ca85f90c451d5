// Async training with delay compensation (--delay-compensation lambda, DC-ASGD on the servers) on the Fashion-MNIST
// subset with 1 server + 2 workers: at MXNet's default lambda 0.04 it trains to the fixture's accuracy bar over both
// intra-node paths and with --staleness 0, the config records lambda, and each server reports the memory of its W
// shard copies (W x shard x 4 bytes); without the flag the config says 0 and the server 0 bytes. With --compress
// onebit (the server compensates the dequantized gradient) it reaches the bar too, alone and with --staleness 0
// (tests/mpi/ps/delay_compensation_test.cpp checks its numbers against a hand-rolled sequence).
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>

#include "train/results.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

constexpr int kWorkers = 2;

void run_compensated(std::optional<double> lambda, IntraNode path, std::optional<int> staleness, int epochs,
                     const std::string& name, Compression compress = Compression::kNone) {
  const auto world = mpi::Communicator::world();
  if (world.size() < 1 + kWorkers) GTEST_SKIP() << "1 server + " << kWorkers << " workers";
  const auto job = first_ranks(world, 1 + kWorkers);
  if (world.rank() >= 1 + kWorkers) return;
  TrainOptions options = small_run(Mode::kAsync, name);
  options.intra_node = path;
  options.delay_compensation = lambda;
  options.staleness = staleness;
  options.epochs = epochs;
  options.compress = compress;
  const TrainOutcome outcome = run_training(job, options);
  if (job.rank() != 0) return;
  const nlohmann::json& results = outcome.results;
  EXPECT_EQ(results["config"]["delay_compensation"].get<double>(), lambda.value_or(0.0));
  EXPECT_EQ(results["config"]["compress"], compress == Compression::kOneBit ? "onebit" : "none");
  const auto& train = results["train"];
  if (epochs == kEpochs) {
    EXPECT_GE(train["test_accuracy"].get<double>(), kAccuracyBar);
    EXPECT_EQ(train["samples"], static_cast<std::uint64_t>(kEpochs) * kSubsetSamples);
  }
  EXPECT_EQ(results["server"]["updates"], train["pushes"]);
  int server_ranks = 0;
  for (const auto& rank : results["per_rank"]) {
    if (!rank.contains("server")) continue;
    ++server_ranks;
    const auto& server = rank["server"];
    ASSERT_TRUE(server.contains("delay_compensation_bytes")) << "rank " << rank["rank"];
    const std::uint64_t expected = lambda ? kWorkers * server["shard_size"].get<std::uint64_t>() * sizeof(float) : 0;
    EXPECT_EQ(server["delay_compensation_bytes"].get<std::uint64_t>(), expected) << "rank " << rank["rank"];
  }
  EXPECT_EQ(server_ranks, 1);
  std::cout << name << ": test accuracy " << train["test_accuracy"] << ", staleness max "
            << results["server"]["staleness"]["max"] << "\n";
}

TEST(TrainDelayCompensation, SharedMemoryReachesTheBar) {
  run_compensated(0.04, IntraNode::kSharedMemory, std::nullopt, kEpochs, "dc_shared");
}
TEST(TrainDelayCompensation, MessagesReachTheBar) {
  run_compensated(0.04, IntraNode::kMessages, std::nullopt, kEpochs, "dc_messages");
}
TEST(TrainDelayCompensation, WithStalenessZeroReachesTheBar) {
  run_compensated(0.04, IntraNode::kSharedMemory, 0, kEpochs, "dc_ssp0");
}
TEST(TrainDelayCompensation, OneBitReachesTheBar) {
  run_compensated(0.04, IntraNode::kMessages, std::nullopt, kEpochs, "dc_onebit", Compression::kOneBit);
}
TEST(TrainDelayCompensation, OneBitWithStalenessZeroReachesTheBar) {
  run_compensated(0.04, IntraNode::kMessages, 0, kEpochs, "dc_onebit_ssp0", Compression::kOneBit);
}

TEST(TrainDelayCompensation, OffRecordsZero) {
  run_compensated(std::nullopt, IntraNode::kSharedMemory, std::nullopt, 1, "dc_off");
}

}  // namespace
}  // namespace psbench::train::testing
