#include "ps/staleness.hpp"

#include <gtest/gtest.h>

namespace psbench::ps {
namespace {

TEST(Staleness, CountsMeanMaxAndTrimsEmptyTail) {
  StalenessHistogram histogram(8);
  for (std::uint64_t s : {0U, 0U, 1U, 3U}) histogram.record(s);
  EXPECT_EQ(histogram.total(), 4U);
  EXPECT_DOUBLE_EQ(histogram.mean(), 1.0);
  EXPECT_EQ(histogram.max(), 3U);
  EXPECT_EQ(histogram.sum(), 4U);
  EXPECT_EQ(histogram.counts(), (std::vector<std::uint64_t>{2, 1, 0, 1}));
}

TEST(Staleness, LargeValuesLandInTheLastBucketButStatsStayExact) {
  StalenessHistogram histogram(4);
  histogram.record(100);
  EXPECT_EQ(histogram.counts(), (std::vector<std::uint64_t>{0, 0, 0, 1}));
  EXPECT_EQ(histogram.max(), 100U);
  EXPECT_DOUBLE_EQ(histogram.mean(), 100.0);
}

TEST(Staleness, MergeAddsCounts) {
  StalenessHistogram a(4);
  StalenessHistogram b(4);
  a.record(1);
  b.record(1);
  b.record(2);
  a.merge(b);
  EXPECT_EQ(a.total(), 3U);
  EXPECT_EQ(a.counts(), (std::vector<std::uint64_t>{0, 2, 1}));
  EXPECT_EQ(a.max(), 2U);
}

// The bounds of docs/architecture.md ("Bounded staleness") at hand-computed points.
TEST(Staleness, BoundOfTheClockRule) {
  EXPECT_EQ(staleness_bound(0, 4, false), 3U);  // W - 1: bulk-synchronous through the servers
  EXPECT_EQ(staleness_bound(1, 4, false), 9U);  // 3 x 3
  EXPECT_EQ(staleness_bound(4, 2, false), 9U);  // 9 x 1
  EXPECT_EQ(staleness_bound(0, 4, true), 7U);   // 2W - 1
  EXPECT_EQ(staleness_bound(2, 3, true), 13U);  // 6 x 2 + 1
  EXPECT_EQ(staleness_bound(3, 1, false), 0U);  // one worker is never stale
}

}  // namespace
}  // namespace psbench::ps
