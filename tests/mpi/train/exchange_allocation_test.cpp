// Sync mode's step allocates no buffer: the model's step, the buckets' non-blocking allreduces started from
// the backward pass, the wait and the update, counted by the allocation probe (tests/unit/nn); nor does a step of
// sync mode with --compress onebit, of bmuf or of averaging, their synchronisations included.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "allocation_probe.hpp"
#include "common/phase_timer.hpp"
#include "mpi/communicator.hpp"
#include "nn/model.hpp"
#include "nn/network_plan.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/gradient_columns.hpp"

namespace psbench::train {
namespace {

constexpr int kBatch = 8;
constexpr int kWarmSteps = 2;
constexpr int kCountedSteps = 3;
constexpr std::size_t kBucketBytes = 16384;  // several buckets, so that some start during the backward pass

TEST(ExchangeAllocations, SyncStepWithBucketsAllocatesNoBuffer) {
  const auto world = mpi::Communicator::world();
  nn::Model model("mlp:64,32", {1, 28, 28}, 10, kBatch, 1, 1);
  const std::unique_ptr<GradientExchange> exchange =
      make_sync_exchange(world, model.gradients(), {0.01F, 0.9F}, kWarmSteps + kCountedSteps, kBucketBytes);
  const std::vector<float> images(static_cast<std::size_t>(kBatch) * 784, 0.25F);
  const std::vector<std::int32_t> labels(kBatch, 3);
  PhaseTimer timer;
  const auto step = [&](std::size_t index) {
    StepInfo info;
    info.step = index;
    info.samples = kBatch;
    info.loss = model.train_step(images.data(), labels.data(), exchange->overlap(model.gradients(), true, timer));
    exchange->exchange(model.gradients(), model.parameters(), info, timer);
  };
  for (int s = 0; s < kWarmSteps; ++s) step(static_cast<std::size_t>(s));
  for (int s = 0; s < kCountedSteps; ++s) {
    allocation_probe::start();
    step(static_cast<std::size_t>(kWarmSteps + s));
    const allocation_probe::Counts counts = allocation_probe::stop();
    EXPECT_EQ(counts.caller_buffers, 0) << "step " << s << " allocated buffers up to " << counts.caller_largest
                                        << " bytes outside oneDNN's primitives";
    EXPECT_GT(counts.executions, 0) << "the probe saw no primitive execute: it is not interposed";
  }
  EXPECT_FALSE(exchange->stopped());
  EXPECT_GT(exchange->totals().wall_s, 0.0);
}

// Takes kWarmSteps steps, then kCountedSteps more each counted by the allocation probe, which must see none.
void expect_counted_steps_allocate_nothing(nn::Model& model, GradientExchange& exchange) {
  const std::vector<float> images(static_cast<std::size_t>(kBatch) * 784, 0.25F);
  const std::vector<std::int32_t> labels(kBatch, 3);
  PhaseTimer timer;
  for (int s = 0; s < kWarmSteps + kCountedSteps; ++s) {
    const bool counted = s >= kWarmSteps;
    if (counted) allocation_probe::start();
    StepInfo info;
    info.step = static_cast<std::size_t>(s);
    info.samples = kBatch;
    info.loss = model.train_step(images.data(), labels.data());
    exchange.exchange(model.gradients(), model.parameters(), info, timer);
    if (!counted) continue;
    const allocation_probe::Counts counts = allocation_probe::stop();
    EXPECT_EQ(counts.caller_buffers, 0) << "step " << s << " allocated buffers up to " << counts.caller_largest
                                        << " bytes outside oneDNN's primitives";
    EXPECT_GT(counts.executions, 0) << "the probe saw no primitive execute: it is not interposed";
  }
  EXPECT_FALSE(exchange.stopped());
  EXPECT_GT(exchange.totals().bytes_sent, 0U);
}

// bmuf's steps and its block synchronisation (every second step here, and the epoch's last): the local update, the
// allreduce of the block deltas in place, the block update and the momentum's reset allocate nothing.
TEST(ExchangeAllocations, BmufStepsAndBlocksAllocateNoBuffer) {
  const auto world = mpi::Communicator::world();
  nn::Model model("mlp:64,32", {1, 28, 28}, 10, kBatch, 1, 1);
  BlockSettings settings;
  settings.block_samples = 2 * kBatch;
  settings.momentum = 0.5F;
  const std::unique_ptr<GradientExchange> exchange =
      make_block_exchange(world, model.parameters(), {0.01F, 0.9F}, settings,
                          static_cast<std::uint64_t>(kWarmSteps + kCountedSteps) * kBatch, kBatch);
  expect_counted_steps_allocate_nothing(model, *exchange);
}

// Averaging's blocks: the allreduce of the samples, the scaled models' allreduce and the copy back.
TEST(ExchangeAllocations, AveragingStepsAndBlocksAllocateNoBuffer) {
  const auto world = mpi::Communicator::world();
  nn::Model model("mlp:64,32", {1, 28, 28}, 10, kBatch, 1, 1);
  BlockSettings settings;
  settings.learner = BlockLearner::kAverage;
  settings.block_samples = 2 * kBatch;
  const std::unique_ptr<GradientExchange> exchange =
      make_block_exchange(world, model.parameters(), {0.01F, 0.9F}, settings,
                          static_cast<std::uint64_t>(kWarmSteps + kCountedSteps) * kBatch, kBatch);
  expect_counted_steps_allocate_nothing(model, *exchange);
}

// 1-bit sync: the quantization, the MPI_Ialltoallv of the stripes, their dequantized sum and its quantization, the
// MPI_Iallgatherv and the update, with and without error feedback.
TEST(ExchangeAllocations, OneBitSyncStepAllocatesNoBuffer) {
  const auto world = mpi::Communicator::world();
  for (const bool error_feedback : {true, false}) {
    nn::Model model("mlp:64,32", {1, 28, 28}, 10, kBatch, 1, 1);
    const std::unique_ptr<GradientExchange> exchange = make_onebit_sync_exchange(
        world, model.gradients(), gradient_columns(nn::plan_network("mlp:64,32", {1, 28, 28}, 10)), {0.01F, 0.9F},
        kWarmSteps + kCountedSteps, error_feedback);
    expect_counted_steps_allocate_nothing(model, *exchange);
  }
}

}  // namespace
}  // namespace psbench::train
