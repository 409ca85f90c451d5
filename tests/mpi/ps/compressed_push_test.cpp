// Compressed pushes (--compress onebit) on 1 server (2 ranks) and 2 servers (3 ranks), one worker: each server
// applies exactly the dequantized gradient, so the worker's pulled parameters equal, bit for bit, a serial SGD over
// the reconstructions of the same quantization (with the worker's residual), and within float rounding SGD over
// 1-bit SGD written out from its definition over CNTK's columns (support/onebit_reference.hpp); every column that
// straddles the shard boundary is quantized as two; the bytes handed to MPI are the closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "compress/onebit.hpp"
#include "exact_shards.hpp"
#include "onebit_reference.hpp"
#include "ps/server.hpp"
#include "ps/shard_columns.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

constexpr int kSteps = 6;
const SgdConfig kSgd{0.25F, 0.5F};

// 200 values: a layer of 20 inputs to 9 units (a tile of 16 columns at the widest vectors, then 4 alone), its bias
// and a vector of 11. At 2 servers shard 0 ends at 112 (7 granules of 16): row 5, column 12 of the matrix, so each
// of its 20 columns is split there (columns 0-11 after 6 values, 12-19 after 5).
const std::vector<std::pair<std::size_t, std::size_t>> kMatrices{{9, 20}, {9, 1}, {11, 1}};
constexpr std::size_t kShardEnd = 112;

compress::ColumnLayout test_columns() {
  std::vector<compress::Matrix> matrices;
  for (const auto& [rows, width] : kMatrices) matrices.push_back({rows, width});
  return compress::ColumnLayout(matrices);
}

float gradient_value(int step, std::size_t i) {
  return std::cos(0.61F * static_cast<float>(i) + 0.9F * static_cast<float>(step)) - 0.1F;
}

std::vector<float> initial_parameters(std::size_t size) {
  std::vector<float> parameters(size);
  for (std::size_t i = 0; i < size; ++i) parameters[i] = 0.02F * static_cast<float>(i % 13) - 0.1F;
  return parameters;
}

// The worker's pulled parameters after every step, computed serially.
std::vector<std::vector<float>> reference(const compress::ColumnLayout& cut) {
  const std::size_t size = cut.values();
  std::vector<float> parameters = initial_parameters(size);
  std::vector<float> residual(size, 0.0F);
  std::vector<std::uint32_t> packed(cut.words());
  std::vector<float> dequantized(size);
  SgdOptimizer optimizer(size, kSgd);
  std::vector<std::vector<float>> steps;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> gradient(size);
    for (std::size_t i = 0; i < size; ++i) gradient[i] = gradient_value(step, i);
    compress::quantize_onebit(cut, gradient, residual, packed);
    compress::dequantize_onebit(cut, packed, dequantized);
    optimizer.apply(parameters, dequantized);
    steps.push_back(parameters);
  }
  return steps;
}

// The same from the definition: the gradient quantized per column of the matrices, each cut at the shard boundary.
std::vector<std::vector<float>> definition_reference(std::size_t size, int servers) {
  const std::vector<reference::IndexColumn> columns = reference::onebit_columns(
      kMatrices, servers > 1 ? std::vector<std::size_t>{kShardEnd} : std::vector<std::size_t>{});
  std::vector<float> parameters = initial_parameters(size);
  std::vector<float> residual(size, 0.0F);
  SgdOptimizer optimizer(size, kSgd);
  std::vector<std::vector<float>> steps;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> gradient(size);
    for (std::size_t i = 0; i < size; ++i) gradient[i] = gradient_value(step, i);
    optimizer.apply(parameters, reference::onebit_reconstruction(columns, gradient, residual));
    steps.push_back(parameters);
  }
  return steps;
}

// A transport and whether the exchange is pipelined.
struct Case {
  testing::Path path = testing::Path::kMessages;
  bool pipeline = false;
};

void run_compressed(int servers, const Case& c) {
  const auto world = mpi::Communicator::world();
  if (world.size() != servers + 1) GTEST_SKIP() << "runs with " << servers << " server(s) and one worker";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const compress::ColumnLayout columns = test_columns();
  const ShardLayout layout(columns.values(), servers);
  const compress::ColumnLayout cut = cut_at_shards(columns, layout);
  EXPECT_EQ(cut.columns(), columns.columns() + (servers > 1 ? 20U : 0U));
  if (servers > 1) {
    ASSERT_EQ(layout.begin(1), kShardEnd);
  }
  const std::vector<float> initial = initial_parameters(columns.values());
  const testing::TestLinks link = testing::make_link(c.path, world, topology, columns.values(), cut.words());
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, kSgd, link.get());
    server.take_compressed_pushes(shard_columns(cut, layout, topology.rank),
                                  cut.words_before(layout.begin(topology.rank)));
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, static_cast<std::uint64_t>(kSteps));
    EXPECT_GT(stats.compress_seconds, 0.0);
    return;
  }
  WorkerClient client(world, topology, layout, link.get(), c.pipeline);
  client.compress_pushes(cut, true);
  std::vector<float> parameters = initial;
  std::vector<float> gradients(columns.values());
  const std::vector<std::vector<float>> expected = reference(cut);
  const std::vector<std::vector<float>> defined_steps = definition_reference(columns.values(), servers);
  PhaseTimer timer;
  for (int step = 0; step < kSteps; ++step) {
    for (std::size_t i = 0; i < gradients.size(); ++i) gradients[i] = gradient_value(step, i);
    PushHeader header;
    header.samples = 8;
    if (c.pipeline) {  // the gradients do not depend on the weights: the replies are the same, one step later
      client.push_pull_pipelined(gradients, parameters, header, timer);
      if (step == 0) continue;
    } else {
      client.push_pull(gradients, parameters, header, timer);
    }
    const auto replied = static_cast<std::size_t>(c.pipeline ? step - 1 : step);
    ASSERT_EQ(parameters, expected[replied]) << "step " << step;
    const std::vector<float>& defined = defined_steps[replied];
    for (std::size_t i = 0; i < parameters.size(); ++i)
      ASSERT_NEAR(parameters[i], defined[i], 1e-5F) << step << " " << i;
  }
  client.complete(parameters, timer);
  ASSERT_EQ(parameters, expected.back()) << "the last reply";
  EXPECT_EQ(timer.count(Phase::kCompress), static_cast<std::uint64_t>(kSteps));
  // Per push and server: a header and the shard's columns (two floats each and their bits in 32-bit words) out; a
  // header and the shard's floats back.
  std::uint64_t sent = 0;
  for (int k = 0; k < servers; ++k) sent += sizeof(PushHeader) + shard_columns(cut, layout, k).words() * 4;
  const std::uint64_t received = servers * sizeof(PullHeader) + columns.values() * sizeof(float);
  EXPECT_EQ(client.traffic().sent, kSteps * sent);
  EXPECT_EQ(client.traffic().received, kSteps * received);
  client.finish();
}

class CompressedPush : public ::testing::TestWithParam<Case> {};

TEST_P(CompressedPush, OneServerAppliesTheDequantizedGradient) { run_compressed(1, GetParam()); }

TEST_P(CompressedPush, TwoServersSplitTheStraddlingColumns) { run_compressed(2, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Transports, CompressedPush,
                         ::testing::Values(Case{testing::Path::kMessages, false}, Case{testing::Path::kOneNode, false},
                                           Case{testing::Path::kRma, false}, Case{testing::Path::kTwoNodesRma, false},
                                           Case{testing::Path::kMessages, true}, Case{testing::Path::kOneNode, true},
                                           Case{testing::Path::kRma, true}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return testing::path_name(info.param.path) + (info.param.pipeline ? "Pipelined" : "");
                         });

}  // namespace
}  // namespace psbench::ps
