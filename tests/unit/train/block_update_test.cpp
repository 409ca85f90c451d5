// BMUF's block update against hand-computed values (one block of two workers, Nesterov on and off, then a
// second block that carries the smoothed update), and the clock that ends blocks.
#include "train/exchange/block_update.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace psbench::train {
namespace {

// Two workers start from w0 = (1, -2) and end their block at (0.5, -1) and (0.7, -2.4): deltas (0.5, -1) and
// (0.3, 0.4), sum (0.8, -0.6). W = 2: CNTK's defaults bm = 1 - 1/2 = 0.5, blr = 1.
constexpr std::array<float, 2> kInitial{1.0F, -2.0F};
constexpr std::array<float, 2> kWorkerA{0.5F, -1.0F};
constexpr std::array<float, 2> kWorkerB{0.7F, -2.4F};
constexpr float kMomentum = 0.5F;

// Both workers' deltas summed, as the allreduce does.
std::vector<float> summed_deltas(const BlockMomentum& update, std::span<const float> a, std::span<const float> b) {
  std::vector<float> delta_a(a.size());
  std::vector<float> delta_b(b.size());
  update.delta(a, delta_a);
  update.delta(b, delta_b);
  std::vector<float> sum(a.size());
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = delta_a[i] + delta_b[i];
  return sum;
}

TEST(BlockMomentum, OneBlockWithoutNesterov) {
  BlockMomentum update(kInitial, kMomentum, 1.0F, false);
  const std::vector<float> sum = summed_deltas(update, kWorkerA, kWorkerB);
  EXPECT_FLOAT_EQ(sum[0], 0.8F);
  EXPECT_FLOAT_EQ(sum[1], -0.6F);
  std::vector<float> parameters(kWorkerA.begin(), kWorkerA.end());
  update.apply(sum, parameters);
  // smoothed = 0.5 * 0 + (1 - 0.5) * 1 * sum = (0.4, -0.3); w = w0 - smoothed = (0.6, -1.7).
  EXPECT_FLOAT_EQ(update.smoothed()[0], 0.4F);
  EXPECT_FLOAT_EQ(update.smoothed()[1], -0.3F);
  EXPECT_FLOAT_EQ(parameters[0], 0.6F);
  EXPECT_FLOAT_EQ(parameters[1], -1.7F);

  // A second block from (0.6, -1.7), deltas summing to (0.2, 0.2): smoothed = 0.5 (0.4, -0.3) + 0.5 (0.2, 0.2)
  // = (0.3, -0.05); w = (0.6, -1.7) - smoothed = (0.3, -1.65).
  const std::array<float, 2> a{0.5F, -1.8F};
  const std::array<float, 2> b{0.5F, -1.8F};
  const std::vector<float> second = summed_deltas(update, a, b);
  update.apply(second, parameters);
  constexpr float kRounding = 1e-6F;  // the deltas (0.1, 0.1) come from differences of rounded values
  EXPECT_NEAR(update.smoothed()[0], 0.3F, kRounding);
  EXPECT_NEAR(update.smoothed()[1], -0.05F, kRounding);
  EXPECT_NEAR(parameters[0], 0.3F, kRounding);
  EXPECT_NEAR(parameters[1], -1.65F, kRounding);
}

TEST(BlockMomentum, OneBlockWithNesterovLooksAheadByBmTimesSmoothed) {
  BlockMomentum update(kInitial, kMomentum, 1.0F, true);
  const std::vector<float> sum = summed_deltas(update, kWorkerA, kWorkerB);
  std::vector<float> parameters(kWorkerB.begin(), kWorkerB.end());
  update.apply(sum, parameters);
  // w = (0.6, -1.7) - 0.5 * (0.4, -0.3) = (0.4, -1.55), and the next block's deltas are taken from it.
  EXPECT_FLOAT_EQ(parameters[0], 0.4F);
  EXPECT_FLOAT_EQ(parameters[1], -1.55F);
  std::vector<float> delta(2);
  update.delta(parameters, delta);
  EXPECT_EQ(delta[0], 0.0F);
  EXPECT_EQ(delta[1], 0.0F);
}

TEST(BlockMomentum, BlockLearningRateScalesTheFilteredSum) {
  BlockMomentum update(kInitial, 0.0F, 0.5F, true);  // bm = 0: no memory, no look-ahead; blr halves the sum
  const std::vector<float> sum = summed_deltas(update, kWorkerA, kWorkerB);
  std::vector<float> parameters(2);
  update.apply(sum, parameters);
  EXPECT_FLOAT_EQ(parameters[0], 1.0F - 0.4F);
  EXPECT_FLOAT_EQ(parameters[1], -2.0F + 0.3F);
}

// The largest partition holds 130 samples in batches of 25: steps of 25, 25, 25, 25, 25 and 5 samples.
TEST(BlockClock, EndsABlockAtTheStepThatReachesItsSamplesAndAtEachEpochsEnd) {
  BlockClock clock(100, 130, 25);
  EXPECT_EQ(clock.steps_per_epoch(), 6U);
  EXPECT_FALSE(clock.pending());
  EXPECT_FALSE(clock.advance(0));
  EXPECT_FALSE(clock.advance(1));
  EXPECT_FALSE(clock.advance(2));
  EXPECT_TRUE(clock.advance(3));  // 100 samples
  EXPECT_FALSE(clock.pending());
  EXPECT_FALSE(clock.advance(4));  // 25
  EXPECT_TRUE(clock.pending());
  EXPECT_TRUE(clock.advance(5));  // 30: the epoch's last step ends the partial block
  EXPECT_FALSE(clock.pending());
  EXPECT_FALSE(clock.advance(0));  // the next epoch counts from 0: 25
  EXPECT_FALSE(clock.advance(1));  // 50
  EXPECT_FALSE(clock.advance(2));  // 75
  EXPECT_TRUE(clock.advance(3));   // 100
}

// A block longer than an epoch: every epoch's end synchronises, and nothing else does.
TEST(BlockClock, ABlockOfTheWholeRunSynchronisesAtEveryEpochsEnd) {
  BlockClock clock(1000, 130, 25);
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (std::size_t step = 0; step + 1 < clock.steps_per_epoch(); ++step) EXPECT_FALSE(clock.advance(step));
    EXPECT_TRUE(clock.advance(clock.steps_per_epoch() - 1)) << "epoch " << epoch;
    EXPECT_FALSE(clock.pending());
  }
}

}  // namespace
}  // namespace psbench::train
