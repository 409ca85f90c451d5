#include "train/epoch_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace psbench::train {
namespace {

std::vector<std::uint32_t> order_of(std::size_t samples, std::uint64_t seed, std::uint32_t worker,
                                    std::uint32_t epoch) {
  EpochOrder order(samples, seed, worker);
  order.shuffle(epoch);
  return {order.indices().begin(), order.indices().end()};
}

TEST(EpochOrder, EveryEpochIsAPermutation) {
  EpochOrder order(1000, 7, 0);
  for (std::uint32_t epoch = 0; epoch < 5; ++epoch) {
    order.shuffle(epoch);
    std::vector<std::uint32_t> sorted(order.indices().begin(), order.indices().end());
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  }
}

TEST(EpochOrder, SameSeedEpochAndWorkerGiveTheSameOrder) { EXPECT_EQ(order_of(500, 3, 1, 2), order_of(500, 3, 1, 2)); }

TEST(EpochOrder, EpochWorkerAndSeedEachChangeTheOrder) {
  const auto base = order_of(500, 3, 1, 2);
  EXPECT_NE(base, order_of(500, 3, 1, 3));
  EXPECT_NE(base, order_of(500, 3, 0, 2));
  EXPECT_NE(base, order_of(500, 4, 1, 2));
}

TEST(EpochOrder, ShuffleActuallyMovesMostSamples) {
  const auto order = order_of(1000, 1, 0, 0);
  std::size_t fixed = 0;
  for (std::uint32_t i = 0; i < order.size(); ++i) fixed += order[i] == i ? 1 : 0;
  EXPECT_LT(fixed, 20U);  // a random permutation fixes one point on average
}

TEST(EpochOrder, BatchesCoverEverySampleOnceWithASmallerLastBatch) {
  constexpr std::size_t kSamples = 103;
  constexpr std::size_t kBatch = 10;
  EpochOrder order(kSamples, 5, 2);
  order.shuffle(0);
  ASSERT_EQ(steps_per_epoch(kSamples, kBatch), 11U);
  std::vector<int> visits(kSamples, 0);
  for (std::size_t step = 0; step < 11; ++step) {
    const auto batch = order.batch(step, kBatch);
    EXPECT_EQ(batch.size(), step < 10 ? kBatch : 3U);
    for (const std::uint32_t index : batch) ++visits[index];
  }
  EXPECT_TRUE(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));
}

TEST(EpochOrder, StepsPerEpochRoundsUp) {
  EXPECT_EQ(steps_per_epoch(100, 10), 10U);
  EXPECT_EQ(steps_per_epoch(101, 10), 11U);
  EXPECT_EQ(steps_per_epoch(5, 10), 1U);
}

TEST(SplitMix64, BelowStaysInRangeAndIsRoughlyUniform) {
  SplitMix64 random(42);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const auto value = random.below(6);
    ASSERT_LT(value, 6U);
    ++counts[value];
  }
  for (const int count : counts) EXPECT_NEAR(count, 10000, 400);
}

TEST(SplitMix64, KnownFirstOutputsMatchTheReferenceAlgorithm) {
  // Reference values of splitmix64 seeded with 0 (Vigna's public-domain implementation).
  SplitMix64 random(0);
  EXPECT_EQ(random.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(random.next(), 0x6E789E6AA1B965F4ULL);
}

}  // namespace
}  // namespace psbench::train
