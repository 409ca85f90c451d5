// Compressed pushes (--compress onebit) on 1 server (2 ranks) and 2 servers (3 ranks), one worker: each server
// applies exactly the dequantized gradient, so the worker's pulled parameters equal, bit for bit, a serial SGD over
// the reconstructions of the same quantization (with the worker's residual); a column that straddles the shard
// boundary is quantized as two; the bytes handed to MPI are the closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compress/onebit.hpp"
#include "ps/server.hpp"
#include "ps/shard_columns.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

constexpr int kSteps = 6;
const SgdConfig kSgd{0.25F, 0.5F};

// 200 values; at 2 servers shard 0 ends at 112 (7 granules of 16), inside the second column.
compress::ColumnLayout test_columns() {
  const std::vector<std::size_t> sizes{50, 70, 33, 40, 7};
  return compress::ColumnLayout(sizes);
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

void run_compressed(int servers) {
  const auto world = mpi::Communicator::world();
  if (world.size() != servers + 1) GTEST_SKIP() << "runs with " << servers << " server(s) and one worker";
  const auto topology = Topology::async(world.size(), world.rank(), servers);
  const compress::ColumnLayout columns = test_columns();
  const ShardLayout layout(columns.values(), servers);
  const compress::ColumnLayout cut = cut_at_shards(columns, layout);
  EXPECT_EQ(cut.columns(), columns.columns() + static_cast<std::size_t>(servers - 1));
  const std::vector<float> initial = initial_parameters(columns.values());
  if (topology.is_server()) {
    Server server(world, topology, layout, initial, kSgd);
    server.take_compressed_pushes(shard_columns(cut, layout, topology.rank));
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, static_cast<std::uint64_t>(kSteps));
    EXPECT_GT(stats.compress_seconds, 0.0);
    return;
  }
  WorkerClient client(world, topology, layout);
  client.compress_pushes(cut, true);
  std::vector<float> parameters = initial;
  std::vector<float> gradients(columns.values());
  const std::vector<std::vector<float>> expected = reference(cut);
  PhaseTimer timer;
  for (int step = 0; step < kSteps; ++step) {
    for (std::size_t i = 0; i < gradients.size(); ++i) gradients[i] = gradient_value(step, i);
    PushHeader header;
    header.samples = 8;
    client.push_pull(gradients, parameters, header, timer);
    ASSERT_EQ(parameters, expected[static_cast<std::size_t>(step)]) << "step " << step;
  }
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

TEST(CompressedPush, OneServerAppliesTheDequantizedGradient) { run_compressed(1); }

TEST(CompressedPush, TwoServersSplitTheStraddlingColumn) { run_compressed(2); }

}  // namespace
}  // namespace psbench::ps
