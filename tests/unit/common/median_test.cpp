#include "common/median.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace psbench {
namespace {

TEST(Median, OddCountIsTheMiddleValueOfAnyOrder) {
  EXPECT_DOUBLE_EQ(median({3.0, -1.0, 7.0}), 3.0);
  EXPECT_DOUBLE_EQ(median({5.0}), 5.0);
}

TEST(Median, EvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 10.0, 2.0}), 3.0);
  EXPECT_DOUBLE_EQ(median({2.0, 2.0}), 2.0);
}

TEST(Median, NoValuesIsRefused) { EXPECT_THROW(median(std::vector<double>{}), std::invalid_argument); }

// 1, 2, 4, 8, 16 in any order: position p x 4 between the order statistics.
TEST(Percentile, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> values = {16.0, 2.0, 8.0, 1.0, 4.0};
  EXPECT_DOUBLE_EQ(percentile(values, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(values, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(percentile(values, 0.9), 8.0 + 0.6 * 8.0);  // position 3.6
  EXPECT_DOUBLE_EQ(percentile(values, 1.0), 16.0);
  EXPECT_DOUBLE_EQ(percentile({4.0, 1.0, 10.0, 2.0}, 0.5), median({4.0, 1.0, 10.0, 2.0}));
  EXPECT_DOUBLE_EQ(percentile({7.0}, 0.9), 7.0);
}

TEST(Percentile, NoValuesOrAFractionOutsideZeroToOneIsRefused) {
  EXPECT_THROW(percentile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(percentile({1.0}, 1.5), std::invalid_argument);
  EXPECT_THROW(percentile({1.0}, -0.1), std::invalid_argument);
}

}  // namespace
}  // namespace psbench
