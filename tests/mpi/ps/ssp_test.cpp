// Bounded staleness (ProtocolSettings::staleness_bound, --staleness s): the server applies every push at once but holds
// the reply to a push that brought its worker's clock to c until every worker not done is at clock >= c - s. With
// all-ones gradients a shard at version v holds exactly initial - rate * v, so each reply's version says how
// many pushes it contains. The cases check, on every path (messages, one shared-memory node, two mimicked nodes),
// with and without the pipeline, and with workers of different speeds:
//   - on the servers: the staleness histogram's max is within the derived bound ((2s + 1)(W - 1), or
//     (2s + 2)(W - 1) + 1 with the pipeline: src/ps/server.cpp), no reply went out while its worker led the
//     slowest by more than s, no reply was held while its worker led by s or less, none stayed held once the
//     bound allowed it, and the clocks' spread after a push never exceeded s + 1;
//   - on the workers: each reply holds every other worker's pushes up to c - s (version >= c + (W-1)(c - s));
//   - workers that finish early (done) and a worker that aborts release the others' held replies.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "exact_shards.hpp"
#include "mpi/backoff_wait.hpp"
#include "ps/server.hpp"
#include "ps/staleness.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

using testing::first_mismatch;
using testing::initial_parameters;
using testing::kRate;
using testing::make_link;
using testing::Path;

constexpr std::size_t kParameters = 2 * kChunkValues + 33;  // several chunks, a partial last one

struct Case {
  Path path = Path::kMessages;
  bool pipeline = false;
  const char* name = "";
};

// What a worker does besides its steps.
enum class Ending { kSameSteps, kUnevenSteps, kFirstAborts };

void run_ssp(int servers, int s, const Case& c, Ending ending = Ending::kSameSteps) {
  constexpr int kSteps = 24;
  const auto world = mpi::Communicator::world();
  mpi::set_spin_budget(std::chrono::microseconds(0));
  if (servers >= world.size()) GTEST_SKIP() << "needs more ranks than servers";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const ShardLayout layout(kParameters, servers);
  const auto initial = initial_parameters(kParameters);
  const auto workers = static_cast<std::uint64_t>(topology.workers());
  const testing::TestLinks link = make_link(c.path, world, topology, kParameters);
  const auto steps_of = [&](int index) { return ending == Ending::kUnevenSteps ? kSteps + 3 * index : kSteps; };
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{kRate, 0.0F}, link.get(), std::nullopt,
                  testing::settings(s));
    const ServerStats stats = server.serve();
    const std::string where = "server " + std::to_string(topology.rank) + ", " + std::to_string(workers) +
                              " workers, s = " + std::to_string(s);
    if (ending != Ending::kFirstAborts) {
      std::uint64_t pushes = 0;
      for (int w = 0; w < topology.workers(); ++w) pushes += static_cast<std::uint64_t>(steps_of(w));
      EXPECT_EQ(stats.updates, pushes) << where;
    }
    EXPECT_LE(stats.staleness.max(), staleness_bound(s, workers, c.pipeline)) << where;
    EXPECT_LE(stats.max_lead, static_cast<std::uint64_t>(s)) << where << ": a reply went out too far ahead";
    EXPECT_LE(stats.max_clock_spread, static_cast<std::uint64_t>(s) + 1) << where;
    // Nor stricter than the rule: a reply is held only while its worker leads the slowest by more than s, and it
    // goes out as soon as the lead is back within s (none is still held when the next message arrives).
    if (stats.held_replies > 0) {
      EXPECT_GT(stats.min_held_lead, static_cast<std::uint64_t>(s)) << where << ": a reply was held within the bound";
    }
    EXPECT_EQ(stats.overdue_holds, 0U) << where << ": a reply the bound allowed was still held";
    ASSERT_EQ(stats.held_seconds_by_worker.size(), workers);
    double held = 0.0;
    for (const double seconds : stats.held_seconds_by_worker) held += seconds;
    EXPECT_NEAR(held, stats.held_seconds, 1e-9);
    if (workers == 1) {
      EXPECT_EQ(stats.held_replies, 0U) << "one worker is never ahead of itself";
    }
    const auto shard = server.shard();
    const std::span<const float> from(initial.data() + layout.begin(topology.rank), shard.size());
    EXPECT_EQ(first_mismatch(shard, from, kRate * static_cast<float>(server.version())), shard.size()) << where;
    return;
  }
  const int index = topology.worker_index();
  WorkerClient client(world, topology, layout, link.get(), c.pipeline, testing::settings(s));
  std::vector<float> gradients(kParameters, 1.0F);
  std::vector<float> weights = initial;
  PhaseTimer timer;
  const int steps = ending == Ending::kFirstAborts && index == 0 ? 3 : steps_of(index);
  bool aborted = false;
  for (int step = 0; step < steps; ++step) {
    // Workers of different speeds: the later ones are slower, and now and then one pauses longer.
    std::this_thread::sleep_for(std::chrono::microseconds(200 * index + (step % 7 == index ? 3000 : 0)));
    PushHeader header;
    header.samples = 8;
    header.loss = 1.0F;
    if (c.pipeline) {
      client.push_pull_pipelined(gradients, weights, header, timer);
    } else {
      client.push_pull(gradients, weights, header, timer);
    }
    if (std::ranges::find(client.versions(), kAbortedVersion) != client.versions().end()) {
      aborted = true;
      break;
    }
    // The replies taken now answer push `answered` (one step back with the pipeline): each holds every other
    // worker's pushes up to answered - s (those that were not done by then).
    const int answered = c.pipeline ? step : step + 1;
    if (ending != Ending::kSameSteps || answered == 0) continue;
    const auto least =
        static_cast<std::uint64_t>(answered) + (workers - 1) * static_cast<std::uint64_t>(std::max(answered - s, 0));
    for (int k = 0; k < servers; ++k) {
      const std::uint64_t version = client.versions()[static_cast<std::size_t>(k)];
      ASSERT_GE(version, least) << "worker " << index << " step " << step << " shard " << k;
      const std::span<const float> shard(weights.data() + layout.begin(k), layout.size(k));
      const std::span<const float> from(initial.data() + layout.begin(k), layout.size(k));
      ASSERT_EQ(first_mismatch(shard, from, kRate * static_cast<float>(version)), layout.size(k));
    }
  }
  if (c.pipeline && !aborted) client.complete(weights, timer);
  client.finish(ending == Ending::kFirstAborts && index == 0 ? PushKind::kAbort : PushKind::kDone);
  if (ending == Ending::kFirstAborts && index != 0 && s == 0) {
    EXPECT_TRUE(aborted) << "worker " << index << " ran all its steps past an aborted worker at s = 0";
  }
}

class PsStaleness : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { mpi::set_spin_budget(std::chrono::microseconds(0)); }
};

TEST_P(PsStaleness, ZeroOneServer) { run_ssp(1, 0, GetParam()); }
TEST_P(PsStaleness, ZeroTwoServers) { run_ssp(2, 0, GetParam()); }
TEST_P(PsStaleness, TwoOneServer) { run_ssp(1, 2, GetParam()); }
TEST_P(PsStaleness, TwoTwoServers) { run_ssp(2, 2, GetParam()); }
TEST_P(PsStaleness, WorkersDoneEarlyReleaseTheOthers) { run_ssp(1, 0, GetParam(), Ending::kUnevenSteps); }
TEST_P(PsStaleness, WorkersDoneEarlyReleaseTheOthersTwoServers) { run_ssp(2, 1, GetParam(), Ending::kUnevenSteps); }
TEST_P(PsStaleness, AnAbortReleasesEveryHeldReply) { run_ssp(1, 0, GetParam(), Ending::kFirstAborts); }
TEST_P(PsStaleness, AnAbortReleasesEveryHeldReplyTwoServers) { run_ssp(2, 0, GetParam(), Ending::kFirstAborts); }

INSTANTIATE_TEST_SUITE_P(
    Paths, PsStaleness,
    ::testing::Values(Case{Path::kMessages, false, "Messages"}, Case{Path::kOneNode, false, "SharedMemory"},
                      Case{Path::kTwoNodes, false, "TwoNodesMixed"}, Case{Path::kMessages, true, "MessagesPipelined"},
                      Case{Path::kOneNode, true, "SharedMemoryPipelined"},
                      Case{Path::kTwoNodes, true, "TwoNodesMixedPipelined"}, Case{Path::kRma, false, "Rma"},
                      Case{Path::kTwoNodesRma, true, "TwoNodesWindowAndRmaPipelined"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace psbench::ps
