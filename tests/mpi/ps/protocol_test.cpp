// The parameter-server protocol with synthetic gradients: every worker pushes a gradient of all ones, so a
// shard at version v must hold exactly initial - rate * v, whatever order the pushes arrive in.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ps/server.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

constexpr std::size_t kParameters = 1001;
constexpr int kStepsPerWorker = 40;
constexpr int kStepsPerEpoch = 10;
constexpr float kRate = 0.5F;  // powers of two keep every value exact in float

std::vector<float> initial_parameters() {
  std::vector<float> values(kParameters);
  std::iota(values.begin(), values.end(), 1000.0F);
  return values;
}

void run_protocol(int servers) {
  const auto world = mpi::Communicator::world();
  if (servers >= world.size()) GTEST_SKIP() << "needs more ranks than servers";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const ShardLayout layout(kParameters, servers);
  const auto initial = initial_parameters();
  const auto workers = static_cast<std::uint64_t>(topology.workers());
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{kRate, 0.0F});
    std::vector<EpochProgress> epochs;
    const ServerStats stats = server.serve([&](const EpochProgress& p) { epochs.push_back(p); });
    EXPECT_EQ(stats.updates, workers * kStepsPerWorker);
    EXPECT_EQ(stats.staleness.total(), stats.updates);
    if (workers == 1) {
      EXPECT_EQ(stats.staleness.max(), 0U);
    }
    EXPECT_LE(stats.staleness.max(), workers - 1) << "a push can miss at most one update from each other worker";
    ASSERT_EQ(epochs.size(), static_cast<std::size_t>(kStepsPerWorker / kStepsPerEpoch));
    for (std::size_t e = 0; e < epochs.size(); ++e) {
      EXPECT_EQ(epochs[e].epoch, e);
      EXPECT_EQ(epochs[e].samples, workers * kStepsPerEpoch * 8);
      EXPECT_DOUBLE_EQ(epochs[e].mean_loss, static_cast<double>(e));
    }
    const auto shard = server.shard();
    const std::size_t begin = layout.begin(topology.rank);
    for (std::size_t i = 0; i < shard.size(); ++i) {
      ASSERT_EQ(shard[i], initial[begin + i] - kRate * static_cast<float>(stats.updates)) << "index " << i;
    }
    return;
  }
  WorkerClient client(world, topology, layout);
  std::vector<float> parameters = initial;
  const std::vector<float> gradients(kParameters, 1.0F);
  PhaseTimer timer;
  for (int step = 0; step < kStepsPerWorker; ++step) {
    PushHeader header;
    header.epoch = static_cast<std::uint32_t>(step / kStepsPerEpoch);
    header.loss = header.epoch;
    header.samples = 8;
    header.last_of_epoch = (step + 1) % kStepsPerEpoch == 0 ? 1 : 0;
    client.push_pull(gradients, parameters, header, timer);
    for (int k = 0; k < servers; ++k) {
      const auto version = client.versions()[static_cast<std::size_t>(k)];
      ASSERT_GE(version, static_cast<std::uint64_t>(step + 1));
      ASSERT_LE(version, workers * kStepsPerWorker);
      for (std::size_t i = layout.begin(k); i < layout.begin(k) + layout.size(k); ++i) {
        ASSERT_EQ(parameters[i], initial[i] - kRate * static_cast<float>(version)) << "index " << i;
      }
    }
  }
  client.finish();
  EXPECT_EQ(timer.count(Phase::kPush), static_cast<std::uint64_t>(kStepsPerWorker));
  EXPECT_EQ(timer.count(Phase::kPull), static_cast<std::uint64_t>(kStepsPerWorker));
}

TEST(PsProtocol, OneServerAppliesEveryPushAndRepliesWithTheFreshShard) { run_protocol(1); }

TEST(PsProtocol, TwoServersShardTheParameters) { run_protocol(2); }

}  // namespace
}  // namespace psbench::ps
