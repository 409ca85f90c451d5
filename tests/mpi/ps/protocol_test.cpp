// The parameter-server protocol with synthetic gradients: every worker pushes a gradient of all ones, so a
// shard at version v must hold exactly initial - rate * v, whatever order the pushes arrive in. Each case
// runs over messages only, over one shared-memory node, over two mimicked nodes (ranks split by parity), where
// every server serves some workers in shared memory and others by messages, over RMA for every pair, and over two
// mimicked nodes whose cross-node pairs use RMA. The shared
// cases run with waits that sleep (spin budget 0, as on an oversubscribed node) and that spin, and with
// the worker's parameters in its own vector (copied from the reply area) or in the reply area itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "exact_shards.hpp"
#include "mpi/backoff_wait.hpp"
#include "ps/server.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

using testing::first_mismatch;
using testing::initial_parameters;
using testing::kRate;
using testing::make_link;
using testing::Path;

constexpr int kStepsPerWorker = 40;
constexpr int kStepsPerEpoch = 10;

// A case: the path, whether waits spin, whether the worker's parameters are its reply area.
struct Case {
  Path path = Path::kMessages;
  bool spin = false;
  bool in_place = false;
  const char* name = "";
};

void run_protocol(int servers, std::size_t parameters, const Case& c) {
  const Path path = c.path;
  const auto world = mpi::Communicator::world();
  mpi::set_spin_budget(std::chrono::microseconds(c.spin ? 2000 : 0));
  if (servers >= world.size()) GTEST_SKIP() << "needs more ranks than servers";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const ShardLayout layout(parameters, servers);
  const auto initial = initial_parameters(parameters);
  const auto workers = static_cast<std::uint64_t>(topology.workers());
  const testing::TestLinks link = make_link(path, world, topology, parameters);
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{kRate, 0.0F}, link.get(), std::nullopt,
                  testing::settings());
    std::vector<EpochProgress> epochs;
    const ServerStats stats = server.serve([&](const EpochProgress& p) { epochs.push_back(p); });
    EXPECT_EQ(stats.updates, workers * kStepsPerWorker);
    EXPECT_EQ(stats.staleness.total(), stats.updates);
    if (workers == 1) {
      EXPECT_EQ(stats.staleness.max(), 0U);
    }
    const auto counts = stats.staleness.counts();
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), stats.updates);
    EXPECT_LT(stats.staleness.max(), stats.updates) << "a push cannot predate the shard's first version";
    ASSERT_EQ(epochs.size(), static_cast<std::size_t>(kStepsPerWorker / kStepsPerEpoch));
    for (std::size_t e = 0; e < epochs.size(); ++e) {
      EXPECT_EQ(epochs[e].epoch, e);
      EXPECT_EQ(epochs[e].samples, workers * kStepsPerEpoch * 8);
      EXPECT_DOUBLE_EQ(epochs[e].mean_loss, static_cast<double>(e));
      // Every push of epochs 0..e is applied when e ends; none after the serve's last.
      EXPECT_GE(epochs[e].updates, (e + 1) * workers * kStepsPerEpoch) << "epoch " << e;
      EXPECT_LE(epochs[e].updates, stats.updates) << "epoch " << e;
    }
    EXPECT_EQ(epochs.back().updates, stats.updates) << "the last push ends the last epoch";
    const auto shard = server.shard();
    const std::size_t begin = layout.begin(topology.rank);
    const std::span<const float> expected_from(initial.data() + begin, shard.size());
    ASSERT_EQ(first_mismatch(shard, expected_from, kRate * static_cast<float>(stats.updates)), shard.size())
        << "the first index of the shard not at initial - rate x updates";
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), false, testing::settings());
  const bool shared = link && !link->gradients().empty();
  // Server ranks are 0..S-1, so a mimicked node of parity p holds a server when S > p.
  const bool server_on_node =
      path == Path::kOneNode || ((path == Path::kTwoNodes || path == Path::kTwoNodesRma) && servers > world.rank() % 2);
  EXPECT_EQ(shared, server_on_node) << "a worker keeps its vectors in the window exactly when a server shares its node";
  std::vector<float> own_weights = initial;
  const std::span<float> weights = c.in_place && shared ? client.reply_parameters() : std::span<float>(own_weights);
  ASSERT_EQ(weights.size(), parameters);
  std::vector<float> own_gradients(shared ? 0 : parameters);
  const std::span<float> gradients = shared ? link->gradients() : std::span<float>(own_gradients);
  std::fill(gradients.begin(), gradients.end(), 1.0F);
  PhaseTimer timer;
  for (int step = 0; step < kStepsPerWorker; ++step) {
    PushHeader header;
    header.epoch = static_cast<std::uint32_t>(step / kStepsPerEpoch);
    header.loss = header.epoch;
    header.samples = 8;
    header.last_of_epoch = (step + 1) % kStepsPerEpoch == 0 ? 1 : 0;
    client.push_pull(gradients, weights, header, timer);
    for (int k = 0; k < servers; ++k) {
      const auto version = client.versions()[static_cast<std::size_t>(k)];
      ASSERT_GE(version, static_cast<std::uint64_t>(step + 1));
      ASSERT_LE(version, workers * kStepsPerWorker);
      const std::span<const float> fresh(weights.data() + layout.begin(k), layout.size(k));
      const std::span<const float> expected_from(initial.data() + layout.begin(k), layout.size(k));
      ASSERT_EQ(first_mismatch(fresh, expected_from, kRate * static_cast<float>(version)), layout.size(k))
          << "the first index of shard " << k << " not at initial - rate x version " << version;
    }
  }
  client.finish();
  EXPECT_EQ(timer.count(Phase::kPush), static_cast<std::uint64_t>(kStepsPerWorker));
  EXPECT_EQ(timer.count(Phase::kPull), static_cast<std::uint64_t>(kStepsPerWorker));
}

class PsProtocol : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { mpi::set_spin_budget(std::chrono::microseconds(0)); }
};

TEST_P(PsProtocol, OneServerAppliesEveryPushAndRepliesWithTheFreshShard) { run_protocol(1, 1001, GetParam()); }

TEST_P(PsProtocol, TwoServersShardTheParameters) { run_protocol(2, 1001, GetParam()); }

TEST_P(PsProtocol, ShardsOfManyChunksArriveWhole) { run_protocol(1, 3 * kChunkValues + 17, GetParam()); }

TEST_P(PsProtocol, TwoServersWithManyChunksEach) { run_protocol(2, 5 * kChunkValues + 3, GetParam()); }

// More chunks than the server's receive ring holds: chunk c + kRingChunks reuses chunk c's buffer.
TEST_P(PsProtocol, ShardsLargerThanTheReceiveRing) {
  run_protocol(1, (kRingChunks + 3) * kChunkValues + 17, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Paths, PsProtocol,
                         ::testing::Values(Case{Path::kMessages, false, false, "Messages"},
                                           Case{Path::kOneNode, false, false, "SharedMemory"},
                                           Case{Path::kOneNode, true, false, "SharedMemorySpinning"},
                                           Case{Path::kOneNode, false, true, "SharedMemoryInPlace"},
                                           Case{Path::kTwoNodes, false, false, "TwoNodesMixed"},
                                           Case{Path::kTwoNodes, true, true, "TwoNodesMixedSpinningInPlace"},
                                           Case{Path::kRma, false, false, "Rma"},
                                           Case{Path::kRma, true, false, "RmaSpinning"},
                                           Case{Path::kTwoNodesRma, false, true, "TwoNodesWindowAndRmaInPlace"}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace psbench::ps
