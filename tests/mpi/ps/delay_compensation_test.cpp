// Delay-compensated ASGD on the servers (DC-ASGD, Server(..., delay_compensation)): a push from worker m applies
// g' = g + lambda*g*g*(w - w_m), w_m the shard as last sent to m, then the usual SGD step. The cases, on every path
// (messages, one shared-memory node, two mimicked nodes):
//   - lambda = 0 leaves the server and the worker bit-identical to plain async (1 worker, momentum, several chunks);
//   - lambda > 0 with 1 worker, and with 2 workers taking turns (a token passed between them, so the server sees a
//     known order), equals a hand-rolled sequence on a tiny shard, as does every reply and each worker's copy w_m;
//   - with --compress onebit (messages), the same for the dequantized pushes, each worker keeping its residual;
//   - with --staleness 0 (held replies) and 2 workers pushing the same gradients: the held reply's copy is what was
//     released, so each round's result is the same whichever worker arrives first.
// The hand-rolled sequence is float arithmetic in the kernel's order; it is compared within 1e-5 (a build with
// -march=native may contract a multiply-add differently in the two), while a wrong w_m moves values by ~1e-2.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compress/column_layout.hpp"
#include "compress/onebit.hpp"
#include "exact_shards.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "ps/server.hpp"
#include "ps/shard_columns.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

using testing::make_link;
using testing::Path;

constexpr int kTokenTag = 9001;  // worker to worker, on world (the server's protocol runs on its duplicate)

// The hand-rolled DC-ASGD: the server's shard w, its velocity v and worker k's copy copies[k].
struct Reference {
  float rate = 0.0F;
  float momentum = 0.0F;
  float lambda = 0.0F;
  std::vector<float> w;
  std::vector<float> v;
  std::vector<std::vector<float>> copies;

  Reference(std::vector<float> initial, int workers, float rate_, float momentum_, float lambda_)
      : rate(rate_),
        momentum(momentum_),
        lambda(lambda_),
        w(std::move(initial)),
        v(w.size(), 0.0F),
        copies(static_cast<std::size_t>(workers), w) {}

  // Worker k's push of g; with reply, its copy becomes the fresh shard.
  void push(int k, const std::vector<float>& g, bool reply) {
    std::vector<float>& sent = copies[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < w.size(); ++i) {
      const float compensated = g[i] + lambda * g[i] * g[i] * (w[i] - sent[i]);
      v[i] = momentum * v[i] + compensated;
      w[i] -= rate * v[i];
    }
    if (reply) sent = w;
  }
  void release(int k) { copies[static_cast<std::size_t>(k)] = w; }
};

std::vector<float> tiny_initial(std::size_t size) {
  std::vector<float> values(size);
  for (std::size_t i = 0; i < size; ++i) values[i] = 0.25F * static_cast<float>(i % 9) - 1.0F;
  return values;
}

// Worker k's gradient at step: values of both signs around 1 (g*g*lambda matters).
std::vector<float> gradient(std::size_t size, int k, int step) {
  std::vector<float> values(size);
  for (std::size_t i = 0; i < size; ++i) {
    const auto j = static_cast<int>(i);
    values[i] = (0.5F + 0.25F * static_cast<float>((j + 3 * step + k) % 5)) * ((j + k) % 2 == 0 ? 1.0F : -1.0F);
  }
  return values;
}

std::size_t first_far(std::span<const float> actual, std::span<const float> expected) {
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual[i] - expected[i]) <= 1e-5F * std::max(1.0F, std::fabs(expected[i])))) return i;
  }
  return actual.size();
}

PushHeader step_header() {
  PushHeader header;
  header.samples = 8;
  header.loss = 1.0F;
  return header;
}

class PsDelayCompensation : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override { mpi::set_spin_budget(std::chrono::microseconds(0)); }
};

// lambda = 0: the compensated path ends bit-identical to plain async, on the server and on the worker.
TEST_P(PsDelayCompensation, LambdaZeroIsPlainAsyncBitForBit) {
  constexpr std::size_t kParameters = 2 * kChunkValues + 33;
  constexpr int kSteps = 12;
  const auto world = mpi::Communicator::world();
  if (world.size() != 2) GTEST_SKIP() << "1 server and 1 worker";
  const auto topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(kParameters, 1);
  const auto initial = testing::initial_parameters(kParameters);
  std::vector<std::vector<float>> results;
  for (const std::optional<float> lambda : {std::optional<float>(), std::optional<float>(0.0F)}) {
    // A fresh window per run: a mailbox's sequence numbers belong to one server's run.
    const testing::TestLinks link = make_link(GetParam(), world, topology, kParameters);
    if (topology.is_server()) {
      Server server(world, topology, layout, initial, SgdConfig{0.01F, 0.9F}, link.get(), lambda, testing::settings());
      EXPECT_EQ(server.delay_compensation_bytes(), lambda ? kParameters * sizeof(float) : 0U);
      server.serve();
      results.emplace_back(server.shard().begin(), server.shard().end());
      continue;
    }
    WorkerClient client(world, topology, layout, link.get(), false, testing::settings());
    std::vector<float> weights = initial;
    PhaseTimer timer;
    for (int step = 0; step < kSteps; ++step) {
      std::vector<float> g = gradient(kParameters, 0, step);
      client.push_pull(g, weights, step_header(), timer);
    }
    client.finish(PushKind::kDone);
    results.push_back(weights);
  }
  ASSERT_EQ(results.size(), 2U);
  std::size_t mismatch = 0;
  while (mismatch < kParameters && results[0][mismatch] == results[1][mismatch]) ++mismatch;
  EXPECT_EQ(mismatch, kParameters) << "rank " << world.rank() << ": lambda = 0 differs from plain async at " << mismatch
                                   << ": " << results[0][std::min(mismatch, kParameters - 1)] << " against "
                                   << results[1][std::min(mismatch, kParameters - 1)];
}

// Workers 0..W-1 push in turns (a token passes from each to the next after its reply), so the server applies the
// pushes in a known order: every reply, the final shard and each worker's copy equal the hand-rolled sequence.
// What worker k pushes at round: its gradient, or with columns (--compress onebit) the gradient plus its residual
// quantized and dequantized, the residual keeping the error.
std::vector<float> pushed(const compress::ColumnLayout* columns, std::vector<float>& residual, int k, int round) {
  std::vector<float> g = gradient(residual.size(), k, round);
  if (columns == nullptr) return g;
  std::vector<std::uint32_t> packed(columns->words());
  compress::quantize_onebit(*columns, g, residual, packed);
  compress::dequantize_onebit(*columns, packed, g);
  return g;
}

// Worker topology.worker_index() pushes rounds gradients (gradient_of(round)) in turn with the other workers (a
// token passed between them on world, so the server sees a known order); returns its last reply.
template <class GradientOf>
std::vector<float> push_in_turns(WorkerClient& client, const mpi::Communicator& world, const Topology& topology,
                                 std::vector<float> weights, int rounds, GradientOf&& gradient_of) {
  const int index = topology.worker_index();
  const int workers = topology.workers();
  PhaseTimer timer;
  const int next = topology.worker_rank((index + 1) % workers);
  const int previous = topology.worker_rank((index + workers - 1) % workers);
  for (int round = 0; round < rounds; ++round) {
    int token = 0;
    if (workers > 1 && !(index == 0 && round == 0)) {
      PSBENCH_MPI_CALL(MPI_Recv(&token, 1, MPI_INT, previous, kTokenTag, world.native(), MPI_STATUS_IGNORE));
    }
    std::vector<float> g = gradient_of(round);
    client.push_pull(g, weights, step_header(), timer);
    if (workers > 1 && !(index == workers - 1 && round == rounds - 1)) {
      PSBENCH_MPI_CALL(MPI_Send(&token, 1, MPI_INT, next, kTokenTag, world.native()));
    }
  }
  return weights;
}

// Workers take turns (a token passed between them); the server's shard, each worker's copy and each last reply
// equal the hand-rolled sequence of what they pushed.
void expect_turns_match_the_reference(Path path, bool onebit) {
  constexpr std::size_t kParameters = 40;
  constexpr int kRounds = 8;
  constexpr float kLambda = 0.25F;
  const std::array<std::size_t, 2> sizes{16, 24};
  const compress::ColumnLayout column_layout(sizes);
  const compress::ColumnLayout* columns = onebit ? &column_layout : nullptr;
  const auto world = mpi::Communicator::world();
  if (world.size() < 2 || world.size() > 3) GTEST_SKIP() << "1 server and 1 or 2 workers";
  const auto topology = Topology::async(world.size(), world.rank(), 1);
  const int workers = topology.workers();
  const ShardLayout layout(kParameters, 1);
  const auto initial = tiny_initial(kParameters);
  const compress::ColumnLayout cut = cut_at_shards(column_layout, layout);
  const testing::TestLinks link = make_link(path, world, topology, kParameters, onebit ? cut.words() : 0);
  const std::string where = std::to_string(workers) + " workers, rank " + std::to_string(world.rank());
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{0.1F, 0.5F}, link.get(), kLambda, testing::settings());
    if (onebit) server.take_compressed_pushes(shard_columns(cut, layout, 0), 0);
    EXPECT_EQ(server.delay_compensation_bytes(), static_cast<std::uint64_t>(workers) * kParameters * sizeof(float));
    server.serve();
    Reference reference(initial, workers, 0.1F, 0.5F, kLambda);
    std::vector<std::vector<float>> residuals(static_cast<std::size_t>(workers), std::vector<float>(kParameters));
    for (int round = 0; round < kRounds; ++round) {
      for (int k = 0; k < workers; ++k) {
        reference.push(k, pushed(columns, residuals[static_cast<std::size_t>(k)], k, round), true);
      }
    }
    EXPECT_EQ(first_far(server.shard(), reference.w), kParameters) << where;
    for (int k = 0; k < workers; ++k) {
      EXPECT_EQ(first_far(server.sent_to(static_cast<std::size_t>(k)), reference.copies[static_cast<std::size_t>(k)]),
                kParameters)
          << where << ": worker " << k << "'s copy";
    }
    return;
  }
  const int index = topology.worker_index();
  WorkerClient client(world, topology, layout, link.get(), false, testing::settings());
  if (onebit) client.compress_pushes(cut, true);
  const std::vector<float> weights = push_in_turns(client, world, topology, initial, kRounds,
                                                   [&](int round) { return gradient(kParameters, index, round); });
  client.finish(PushKind::kDone);
  // Worker index's last reply is the shard after its own last push (round kRounds - 1).
  Reference full(initial, workers, 0.1F, 0.5F, kLambda);
  std::vector<std::vector<float>> residuals(static_cast<std::size_t>(workers), std::vector<float>(kParameters));
  for (int round = 0; round < kRounds; ++round) {
    for (int k = 0; k < workers; ++k) {
      full.push(k, pushed(columns, residuals[static_cast<std::size_t>(k)], k, round), true);
      if (round == kRounds - 1 && k == index) {
        EXPECT_EQ(first_far(weights, full.w), kParameters) << where << ": the last reply";
      }
    }
  }
}

// Two workers in turns push g = (2, -1) twice each on a shard of (1, 2) (rate 0.5, no momentum, lambda 0.25): every
// push but the first is one version stale, so g' = g + lambda g g (w - w_m) differs from g. By hand, in exact floats:
//   worker 0: w - w_0 = 0: g' = (2, -1), w = (0, 2.5), w_0 = w;
//   worker 1: w - w_1 = (-1, 0.5): g' = (1, -0.875), w = (-0.5, 2.9375), w_1 = w;
//   worker 0: w - w_0 = (-0.5, 0.4375): g' = (1.5, -0.890625), w = (-1.25, 3.3828125), w_0 = w;
//   worker 1: w - w_1 = (-0.75, 0.4453125): g' = (1.25, -0.888671875), w = (-1.875, 3.8271484375).
TEST_P(PsDelayCompensation, StalePushesAreCompensatedAsComputedByHand) {
  const auto world = mpi::Communicator::world();
  if (world.size() != 3) GTEST_SKIP() << "1 server and 2 workers";
  const auto topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(2, 1);
  const std::vector<float> initial{1.0F, 2.0F};
  const testing::TestLinks link = make_link(GetParam(), world, topology, 2);
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{0.5F, 0.0F}, link.get(), 0.25F, testing::settings());
    server.serve();
    EXPECT_EQ(server.shard()[0], -1.875F);
    EXPECT_EQ(server.shard()[1], 3.8271484375F);
    EXPECT_EQ(server.sent_to(0)[0], -1.25F);
    EXPECT_EQ(server.sent_to(0)[1], 3.3828125F);
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), false, testing::settings());
  const std::vector<float> last = push_in_turns(client, world, topology, initial, 2, [](int) {
    return std::vector<float>{2.0F, -1.0F};
  });
  client.finish(PushKind::kDone);
  const std::vector<float> expected = topology.worker_index() == 0 ? std::vector<float>{-1.25F, 3.3828125F}
                                                                   : std::vector<float>{-1.875F, 3.8271484375F};
  EXPECT_EQ(last, expected);
}

TEST_P(PsDelayCompensation, WorkersInTurnsMatchAHandRolledSequence) {
  expect_turns_match_the_reference(GetParam(), false);
}

// Compressed pushes, on every transport.
TEST_P(PsDelayCompensation, OneBitWorkersInTurnsMatchAHandRolledSequence) {
  expect_turns_match_the_reference(GetParam(), true);
}

// --staleness 0 with 2 workers pushing the same gradients each round: the first push of a round is held, the second
// answered and the first released, both with the shard after both pushes. Each worker's copy must be that shard
// (what was released, not what stood when its push was applied), or the next round's compensation differs.
TEST_P(PsDelayCompensation, HeldRepliesRefreshTheCopyAtRelease) {
  constexpr std::size_t kParameters = 40;
  constexpr int kRounds = 8;
  constexpr float kLambda = 0.25F;
  const auto world = mpi::Communicator::world();
  if (world.size() != 3) GTEST_SKIP() << "1 server and 2 workers";
  const auto topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(kParameters, 1);
  const auto initial = tiny_initial(kParameters);
  const testing::TestLinks link = make_link(GetParam(), world, topology, kParameters);
  // Either order gives the same: the first push of a round sees w - w_m = 0, the second the first's step.
  Reference reference(initial, 2, 0.1F, 0.0F, kLambda);
  std::vector<std::vector<float>> after_round;
  for (int round = 0; round < kRounds; ++round) {
    reference.push(0, gradient(kParameters, 0, round), false);
    reference.push(1, gradient(kParameters, 0, round), true);
    reference.release(0);
    after_round.push_back(reference.w);
  }
  const std::string where = "rank " + std::to_string(world.rank());
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, SgdConfig{0.1F, 0.0F}, link.get(), kLambda, testing::settings(0));
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, 2U * kRounds);
    EXPECT_GE(stats.held_replies, 1U);
    EXPECT_EQ(first_far(server.shard(), reference.w), kParameters) << where;
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(first_far(server.sent_to(k), reference.w), kParameters) << where << ": worker " << k << "'s copy";
    }
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), false, testing::settings());
  std::vector<float> weights = initial;
  PhaseTimer timer;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<float> g = gradient(kParameters, 0, round);  // the same for both workers
    client.push_pull(g, weights, step_header(), timer);
    EXPECT_EQ(first_far(weights, after_round[static_cast<std::size_t>(round)]), kParameters)
        << where << ", round " << round;
  }
  client.finish(PushKind::kDone);
}

INSTANTIATE_TEST_SUITE_P(Paths, PsDelayCompensation,
                         ::testing::Values(Path::kMessages, Path::kOneNode, Path::kTwoNodes, Path::kRma,
                                           Path::kTwoNodesRma),
                         [](const ::testing::TestParamInfo<Path>& info) { return testing::path_name(info.param); });

}  // namespace
}  // namespace psbench::ps
