#include "perf/count_list.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

TEST(CountList, ParsesCountsRangesAndPowers) {
  EXPECT_EQ(parse_count_list("4", "--workers"), (std::vector<int>{4}));
  EXPECT_EQ(parse_count_list("1-4", "--workers"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_count_list("2^0-2^4", "--workers"), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_count_list("8,2^1,3-4,2", "--workers"), (std::vector<int>{2, 3, 4, 8}));
  EXPECT_EQ(parse_count_list("2^0-2^17", "--workers").back(), 131072);
}

void expect_error(const std::string& text, const std::string& fragment) {
  try {
    parse_count_list(text, "--workers");
    FAIL() << "accepted '" << text << "'";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(CountList, RefusesEmptyZeroReversedAndWords) {
  expect_error("", "empty list");
  expect_error(",", "empty list");
  expect_error("0", "count of 0, below 1");
  expect_error("4-2", "runs backwards");
  expect_error("four", "is not a count");
  expect_error("1,,2", "empty item");
  expect_error("2^30", "exponent");
}

}  // namespace
}  // namespace psbench::perf
