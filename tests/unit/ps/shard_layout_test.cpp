#include "ps/shard_layout.hpp"

#include <gtest/gtest.h>

namespace psbench::ps {
namespace {

TEST(ShardLayout, ShardsAreContiguousBalancedAndCoverEveryParameter) {
  for (std::size_t parameters : {1UL, 7UL, 10UL, 63UL, 64UL, 535818UL, 3274634UL}) {
    for (int shards : {1, 2, 3, 4, 7}) {
      const ShardLayout layout(parameters, shards);
      std::size_t next = 0;
      std::size_t smallest = parameters;
      std::size_t largest = 0;
      for (int k = 0; k < shards; ++k) {
        EXPECT_EQ(layout.begin(k), next) << parameters << " over " << shards;
        next += layout.size(k);
        smallest = std::min(smallest, layout.size(k));
        largest = std::max(largest, layout.size(k));
      }
      EXPECT_EQ(next, parameters);
      // Whole granules, the first shards one more, the last one short of its partial granule's rest.
      const std::size_t granule = parameters >= kShardGranule * static_cast<std::size_t>(shards) ? kShardGranule : 1;
      EXPECT_LE(largest - smallest, 2 * granule - 1) << parameters << " over " << shards;
    }
  }
}

TEST(ShardLayout, EveryShardStartsOnAGranule) {
  for (std::size_t parameters : {64UL, 535818UL, 3274634UL}) {
    for (int shards : {2, 3, 4}) {
      const ShardLayout layout(parameters, shards);
      for (int k = 0; k < shards; ++k) EXPECT_EQ(layout.begin(k) % kShardGranule, 0U) << parameters << "/" << shards;
    }
  }
}

TEST(ShardLayout, GranulesAreSplitLikeValues) {
  const ShardLayout layout(535818, 2);  // 33,489 granules, the last of 10 values
  EXPECT_EQ(layout.begin(1), 16U * 16745);
  EXPECT_EQ(layout.size(0), 16U * 16745);
  EXPECT_EQ(layout.size(1), 535818U - 16 * 16745);
}

TEST(ShardLayout, FirstShardsTakeTheRemainder) {
  const ShardLayout layout(10, 4);
  EXPECT_EQ(layout.size(0), 3U);
  EXPECT_EQ(layout.size(1), 3U);
  EXPECT_EQ(layout.size(2), 2U);
  EXPECT_EQ(layout.size(3), 2U);
  EXPECT_EQ(layout.begin(3), 8U);
}

}  // namespace
}  // namespace psbench::ps
