// The pipelined exchange (WorkerClient::push_pull_pipelined, --pipeline): with synthetic all-ones gradients a
// shard at version v holds exactly initial - rate * v, so each step can check which versions the worker's
// parameters hold. The cases check that a step's replies reach the parameters only at the next step (never
// while the worker computes), that the gradient may be overwritten as soon as the call returns (in place, once
// release_gradients() returns), that each push carries the versions one step older (every push but a
// server's first is at least 1 stale), and, with the servers handing the turn from worker to worker (strict
// round robin), that staleness is exactly W-1 without the pipeline and 2W-1 with it: the bounds derived in
// src/train/exchange/async_exchange.cpp. Every case runs over messages, over one shared-memory node and over two
// mimicked nodes (mixed), with the worker's gradient in a vector of its own and in the shared window itself.
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
#include "mpi/call.hpp"
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

constexpr int kTagTurn = 901;

struct Case {
  Path path = Path::kMessages;
  bool gradients_in_window = false;  // the worker's gradient is the window's gradient area (the model's, by default)
  const char* name = "";
};

PushHeader step_header(int step, int steps) {
  PushHeader header;
  header.samples = 8;
  header.loss = 1.0F;
  header.last_of_epoch = step + 1 == steps ? 1 : 0;
  return header;
}

// Every shard of weights holds initial - rate * (its version in versions).
void expect_at_versions(std::span<const float> weights, const std::vector<float>& initial, const ShardLayout& layout,
                        const std::vector<std::uint64_t>& versions, const std::string& when) {
  for (int k = 0; k < layout.shards(); ++k) {
    const std::span<const float> shard(weights.data() + layout.begin(k), layout.size(k));
    const std::span<const float> from(initial.data() + layout.begin(k), layout.size(k));
    const auto version = versions[static_cast<std::size_t>(k)];
    ASSERT_EQ(first_mismatch(shard, from, kRate * static_cast<float>(version)), layout.size(k))
        << when << ": the first index of shard " << k << " not at initial - rate x version " << version;
  }
}

// in_place: the push reads the gradient itself (no copy), and the worker releases it (release_gradients, what the
// next backward pass does first) before it overwrites it.
void run_pipelined(int servers, std::size_t parameters, int steps, const Case& c, bool in_place = false) {
  const auto world = mpi::Communicator::world();
  mpi::set_spin_budget(std::chrono::microseconds(0));
  if (servers >= world.size()) GTEST_SKIP() << "needs more ranks than servers";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const ShardLayout layout(parameters, servers);
  const auto initial = initial_parameters(parameters);
  const auto workers = static_cast<std::uint64_t>(topology.workers());
  const testing::TestLinks link = make_link(c.path, world, topology, parameters);
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{kRate, 0.0F}, link.get(), std::nullopt,
                  testing::settings());
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, workers * static_cast<std::uint64_t>(steps));
    // Every push carries the versions of the step before the last: only the server's very first is fresh.
    const auto counts = stats.staleness.counts();
    ASSERT_FALSE(counts.empty());
    EXPECT_EQ(counts[0], 1U) << "pushes 0 versions stale";
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), stats.updates);
    const auto shard = server.shard();
    const std::span<const float> from(initial.data() + layout.begin(topology.rank), shard.size());
    EXPECT_EQ(first_mismatch(shard, from, kRate * static_cast<float>(stats.updates)), shard.size())
        << "a server applied a gradient other than all ones: the worker's buffer was read after the worker changed it";
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), true, testing::settings());
  const bool shared = link && !link->gradients().empty();
  std::vector<float> own_gradients(c.gradients_in_window && shared ? 0 : parameters);
  const std::span<float> gradients =
      c.gradients_in_window && shared ? link->gradients() : std::span<float>(own_gradients);
  std::vector<float> weights = initial;
  PhaseTimer timer;
  std::vector<std::uint64_t> held(static_cast<std::size_t>(servers), 0);  // versions the weights hold
  for (int step = 0; step < steps; ++step) {
    // The weights have not changed since the last call: the replies in flight landed elsewhere.
    while (client.awaiting_messages()) client.progress();
    expect_at_versions(weights, initial, layout, held, "before step " + std::to_string(step));
    std::fill(gradients.begin(), gradients.end(), 1.0F);
    client.push_pull_pipelined(gradients, weights, step_header(step, steps), timer, in_place);
    ASSERT_TRUE(client.in_flight());
    if (in_place) client.release_gradients(timer);
    // The gradient may change now (at once without in_place): the servers must never see this.
    std::fill(gradients.begin(), gradients.end(), -1.0e6F);
    for (int k = 0; k < servers; ++k) {
      const auto version = client.versions()[static_cast<std::size_t>(k)];
      if (step == 0) {
        ASSERT_EQ(version, 0U) << "no reply is taken before the second step";
      } else {
        ASSERT_GE(version, static_cast<std::uint64_t>(step)) << "the worker's own pushes 0.." << step - 1;
        ASSERT_LE(version, workers * static_cast<std::uint64_t>(steps));
      }
    }
    held = client.versions();
    expect_at_versions(weights, initial, layout, held, "after step " + std::to_string(step));
  }
  client.complete(weights, timer);
  EXPECT_FALSE(client.in_flight());
  for (int k = 0; k < servers; ++k) {
    EXPECT_GE(client.versions()[static_cast<std::size_t>(k)], static_cast<std::uint64_t>(steps));
  }
  expect_at_versions(weights, initial, layout, client.versions(), "after the last completion");
  client.finish();
  // Each push is timed, and in place each release too.
  EXPECT_EQ(timer.count(Phase::kPush), static_cast<std::uint64_t>(in_place ? 2 * steps : steps));
  EXPECT_GE(timer.count(Phase::kPull), static_cast<std::uint64_t>(steps));
  const WorkerClient::Timing timing = client.timing();
  EXPECT_GT(timing.wall_s, 0.0);
  EXPECT_GT(timing.wait_s, 0.0);
  EXPECT_LE(timing.wait_s, timing.wall_s);
}

// Strict round robin: after applying worker i's push, every server hands the turn to worker i+1 (a message);
// a worker pushes once it holds the turn from every server. Each server then applies the pushes in the same
// order, round after round, and its staleness histogram is exact.
std::vector<std::uint64_t> round_robin_histogram(int workers, int rounds, bool pipeline) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(2 * workers), 0);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < workers; ++i) {
      // Push r of worker i is the server's push r W + i; it carries the version after the worker's push
      // r - 1 (r - 2 with the pipeline), which was the server's push (r - 1) W + i, or 0 before any.
      const int back = pipeline ? 2 : 1;
      const int applied_at = r * workers + i;
      const int carried = r >= back ? (r - back) * workers + i + 1 : 0;
      ++counts[static_cast<std::size_t>(applied_at - carried)];
    }
  }
  while (!counts.empty() && counts.back() == 0) counts.pop_back();
  return counts;
}

void run_round_robin(int servers, bool pipeline, const Case& c) {
  constexpr int kRounds = 12;
  constexpr std::size_t kParameters = 2 * kChunkValues + 33;
  const auto world = mpi::Communicator::world();
  mpi::set_spin_budget(std::chrono::microseconds(0));
  if (servers >= world.size()) GTEST_SKIP() << "needs more ranks than servers";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const ShardLayout layout(kParameters, servers);
  const auto initial = initial_parameters(kParameters);
  const int workers = topology.workers();
  const testing::TestLinks link = make_link(c.path, world, topology, kParameters);
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{kRate, 0.0F}, link.get(), std::nullopt,
                  testing::settings());
    const mpi::Communicator turns = world.duplicate();
    server.set_push_observer([&](int source, const PushHeader& /*header*/) {
      const int next = topology.worker_rank((source - servers + 1) % workers);
      const int token = source;
      PSBENCH_MPI_CALL(MPI_Send(&token, 1, MPI_INT, next, kTagTurn, turns.native()));
    });
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, static_cast<std::uint64_t>(workers * kRounds));
    EXPECT_EQ(stats.staleness.counts(), round_robin_histogram(workers, kRounds, pipeline))
        << "server " << topology.rank << ", " << workers << " workers";
    EXPECT_EQ(stats.staleness.max(), static_cast<std::uint64_t>(pipeline ? 2 * workers - 1 : workers - 1));
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), pipeline, testing::settings());
  const mpi::Communicator turns = world.duplicate();
  const auto take_turn = [&] {  // one token from every server
    for (int k = 0; k < servers; ++k) {
      const MPI_Status status = mpi::wait_for_message(turns.native(), MPI_ANY_SOURCE, kTagTurn);
      int token = 0;
      PSBENCH_MPI_CALL(MPI_Recv(&token, 1, MPI_INT, status.MPI_SOURCE, kTagTurn, turns.native(), MPI_STATUS_IGNORE));
    }
  };
  const bool shared = link && !link->gradients().empty();
  std::vector<float> own_gradients(c.gradients_in_window && shared ? 0 : kParameters);
  const std::span<float> gradients =
      c.gradients_in_window && shared ? link->gradients() : std::span<float>(own_gradients);
  std::vector<float> weights = initial;
  PhaseTimer timer;
  const bool first = topology.worker_index() == 0;
  for (int r = 0; r < kRounds; ++r) {
    if (r > 0 || !first) take_turn();
    std::fill(gradients.begin(), gradients.end(), 1.0F);
    if (pipeline) {
      client.push_pull_pipelined(gradients, weights, step_header(r, kRounds), timer);
    } else {
      client.push_pull(gradients, weights, step_header(r, kRounds), timer);
    }
  }
  client.complete(weights, timer);
  client.finish();
  if (first) take_turn();  // the last worker's last push hands the turn back to the first
  expect_at_versions(weights, initial, layout, client.versions(), "at the end");
}

class PsPipeline : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { mpi::set_spin_budget(std::chrono::microseconds(0)); }
};

TEST_P(PsPipeline, OneServer) { run_pipelined(1, 1001, 30, GetParam()); }

TEST_P(PsPipeline, TwoServersWithManyChunksEach) { run_pipelined(2, 5 * kChunkValues + 3, 12, GetParam()); }

TEST_P(PsPipeline, OneServerInPlace) { run_pipelined(1, 1001, 30, GetParam(), true); }

TEST_P(PsPipeline, TwoServersWithManyChunksEachInPlace) {
  run_pipelined(2, 5 * kChunkValues + 3, 12, GetParam(), true);
}

TEST_P(PsPipeline, RoundRobinStalenessWithoutThePipelineIsWMinusOne) { run_round_robin(1, false, GetParam()); }

TEST_P(PsPipeline, RoundRobinStalenessWithThePipelineIsTwoWMinusOne) { run_round_robin(1, true, GetParam()); }

TEST_P(PsPipeline, RoundRobinStalenessWithTwoServers) { run_round_robin(2, true, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Paths, PsPipeline,
                         ::testing::Values(Case{Path::kMessages, false, "Messages"},
                                           Case{Path::kOneNode, false, "SharedMemory"},
                                           Case{Path::kOneNode, true, "SharedMemoryGradientsInWindow"},
                                           Case{Path::kTwoNodes, false, "TwoNodesMixed"},
                                           Case{Path::kTwoNodes, true, "TwoNodesMixedGradientsInWindow"},
                                           Case{Path::kRma, false, "Rma"},
                                           Case{Path::kTwoNodesRma, true, "TwoNodesWindowAndRmaGradientsInWindow"}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace psbench::ps
