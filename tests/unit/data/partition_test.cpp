#include "data/partition.hpp"

#include <gtest/gtest.h>

namespace psbench::data {
namespace {

TEST(PartitionRange, CoversEverySampleOnceContiguousAndBalanced) {
  for (std::uint64_t total : {1ULL, 2ULL, 3ULL, 7ULL, 10ULL, 60000ULL, 1000003ULL}) {
    for (int parts = 1; parts <= 9; ++parts) {
      if (static_cast<std::uint64_t>(parts) > total) continue;
      std::uint64_t next = 0;
      std::uint64_t smallest = total;
      std::uint64_t largest = 0;
      for (int i = 0; i < parts; ++i) {
        const SampleRange range = partition_range(total, parts, i);
        EXPECT_EQ(range.first, next) << total << " samples, part " << i << " of " << parts;
        next = range.end();
        smallest = std::min(smallest, range.count);
        largest = std::max(largest, range.count);
      }
      EXPECT_EQ(next, total);
      EXPECT_LE(largest - smallest, 1U);
      EXPECT_GE(smallest, 1U);
    }
  }
}

TEST(PartitionRange, LargerPartsComeFirst) {
  EXPECT_EQ(partition_range(10, 4, 0).count, 3U);
  EXPECT_EQ(partition_range(10, 4, 1).count, 3U);
  EXPECT_EQ(partition_range(10, 4, 2).count, 2U);
  EXPECT_EQ(partition_range(10, 4, 3).first, 8U);
}

TEST(PartitionRange, MorePartsThanSamplesLeavesSomeEmpty) {
  EXPECT_EQ(partition_range(2, 3, 2).count, 0U);
  EXPECT_EQ(partition_range(2, 3, 2).first, 2U);
}

TEST(Intersect, OverlapAndDisjoint) {
  const SampleRange overlap = intersect({10, 10}, {15, 10});
  EXPECT_EQ(overlap.first, 15U);
  EXPECT_EQ(overlap.count, 5U);
  EXPECT_EQ(intersect({0, 5}, {5, 5}).count, 0U);
  EXPECT_EQ(intersect({0, 100}, {20, 3}).count, 3U);
}

}  // namespace
}  // namespace psbench::data
