#include "common/check.hpp"

#include <gtest/gtest.h>

namespace psbench {
namespace {

TEST(CheckDeathTest, FailedCheckPrintsPrefixLocationAndDetail) {
  set_check_prefix("rank 7");
  EXPECT_DEATH({ PSBENCH_CHECK(1 + 1 == 3) << "arithmetic broke: " << 42; },
               "check failed on rank 7 at .*check_test.cpp:[0-9]+: 1 \\+ 1 == 3 \\(arithmetic broke: 42\\)");
}

TEST(Check, PassingCheckDoesNothing) {
  int evaluated = 0;
  PSBENCH_CHECK(++evaluated == 1) << "never printed";
  EXPECT_EQ(evaluated, 1);
}

}  // namespace
}  // namespace psbench
