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

}  // namespace
}  // namespace psbench
