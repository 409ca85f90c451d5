// Bytes on the wire: every worker's per_rank[].worker.exchange.bytes_sent and bytes_received equal the closed
// form of its run (docs/results.md), and the trace's counter ends at the same figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "ps/protocol.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

constexpr std::uint64_t kBucketBytes = 40000;  // mlp:32's 25,450 parameters in three buckets, the last partial

std::uint64_t padded_steps(const nlohmann::json& results) {
  std::uint64_t largest = 0;
  for (const auto& rank : results["per_rank"]) {
    if (rank.contains("worker")) largest = std::max(largest, rank["worker"]["samples"].get<std::uint64_t>());
  }
  return (largest + kBatch - 1) / kBatch;
}

// A ring allreduce of every bucket, every padded step, each way.
TEST(WireBytes, SyncCountsARingAllreduceOfEveryBucketPerStep) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kSync, "bytes_sync");
  options.epochs = 1;
  options.bucket_bytes = kBucketBytes;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() != 0) return;
  const auto& results = outcome.results;
  const auto parameters = results["model"]["parameters"].get<std::uint64_t>();
  const std::uint64_t bucket_values = kBucketBytes / sizeof(float);
  const std::uint64_t full_buckets = parameters / bucket_values;
  ASSERT_EQ(full_buckets, 2U);
  const std::uint64_t per_step =
      full_buckets * ring_allreduce_bytes(kBucketBytes, world.size()) +
      ring_allreduce_bytes((parameters - full_buckets * bucket_values) * sizeof(float), world.size());
  const std::uint64_t expected = padded_steps(results) * per_step;
  for (const auto& rank : results["per_rank"]) {
    EXPECT_EQ(rank["worker"]["exchange"]["bytes_sent"], expected);
    EXPECT_EQ(rank["worker"]["exchange"]["bytes_received"], expected);
  }
  EXPECT_EQ(ring_allreduce_bytes(4000, 4), 6000U);  // 2 (W - 1) / W x n
  EXPECT_EQ(ring_allreduce_bytes(4000, 1), 0U);
}

// Each step pushes a header and the gradient's shard to every server and takes a header and the shard back;
// the end adds a done header per server, and the first worker takes the final shards (P floats).
TEST(WireBytes, AsyncCountsEveryPushReplyDoneAndFinalShard) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kAsync, "bytes_async");
  options.epochs = 1;
  options.servers = world.size() >= 3 ? 2 : 1;
  options.trace_path = scratch_dir() + "/bytes_async.trace.json";
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() != 0) return;
  const auto& results = outcome.results;
  const auto servers = static_cast<std::uint64_t>(options.servers);
  const std::uint64_t parameter_bytes = results["model"]["parameters"].get<std::uint64_t>() * sizeof(float);
  std::ifstream in(options.trace_path);
  const auto trace = nlohmann::json::parse(in);
  for (const auto& rank : results["per_rank"]) {
    if (!rank.contains("worker")) continue;
    const auto& worker = rank["worker"];
    const auto steps = worker["steps"].get<std::uint64_t>();
    const std::uint64_t sent =
        steps * (servers * sizeof(ps::PushHeader) + parameter_bytes) + servers * sizeof(ps::PushHeader);
    const std::uint64_t received =
        steps * (servers * sizeof(ps::PullHeader) + parameter_bytes) + (worker["index"] == 0 ? parameter_bytes : 0);
    EXPECT_EQ(worker["exchange"]["bytes_sent"], sent) << "rank " << rank["rank"];
    EXPECT_EQ(worker["exchange"]["bytes_received"], received) << "rank " << rank["rank"];
    // The rank's counter track: its last sample holds the run's figures.
    const std::string counter = "rank " + std::to_string(rank["rank"].get<int>()) + " exchange bytes";
    nlohmann::json last;
    for (const auto& event : trace["traceEvents"]) {
      if (event["ph"] == "C" && event["name"] == counter) last = event;
    }
    ASSERT_FALSE(last.is_null()) << counter;
    EXPECT_EQ(last["args"]["sent"], sent);
    EXPECT_EQ(last["args"]["received"], received);
  }
}

}  // namespace
}  // namespace psbench::train::testing
