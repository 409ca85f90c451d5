#include "train/run_health.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace psbench::train {
namespace {

TrainOptions options() {
  TrainOptions result;
  result.learning_rate = 0.05;
  result.momentum = 0.9;
  result.epochs = 3;
  return result;
}

TEST(RunHealth, OwnNonFiniteLossNamesRankStepValueAndFlags) {
  const StopPoint stop{1, 937, std::numeric_limits<float>::quiet_NaN(), true};
  EXPECT_EQ(stop_message(stop, 2, 1, options()),
            "the training loss became NaN on rank 2 (worker 1), step 937 (epoch 2 of 3): the run diverged; try a "
            "lower --lr (now 0.05) or --momentum (now 0.9), or --warmup-steps N (now 0)");
  const StopPoint infinite{0, 4, std::numeric_limits<float>::infinity(), true};
  EXPECT_NE(stop_message(infinite, 1, 0, options()).find("became inf on rank 1"), std::string::npos);
}

TEST(RunHealth, StopCausedElsewhereSaysTheExchangeWentNonFinite) {
  const StopPoint stop{0, 12, 1.5F, false};
  EXPECT_EQ(stop_message(stop, 3, 2, options()).rfind("the exchanged gradients became non-finite at rank 3", 0), 0U);
}

TEST(RunHealth, ChanceLevelIsWithinTwoPercentOfLnK) {
  const double chance = std::log(10.0);
  EXPECT_TRUE(chance_level_warning(chance * 1.019, 0.5, 10, options()));
  EXPECT_TRUE(chance_level_warning(chance * 0.981, 0.5, 10, options()));
  EXPECT_FALSE(chance_level_warning(chance * 1.021, 0.5, 10, options()));
  EXPECT_FALSE(chance_level_warning(chance * 0.979, 0.5, 10, options()));
  EXPECT_FALSE(chance_level_warning(0.4, 0.5, 10, options()));
  const auto warning = chance_level_warning(2.41, chance, 10, options());  // the training mean hides a collapse
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->rfind("the final parameters' test loss 2.3026 is within 2% of ln 10 = 2.3026", 0), 0U) << *warning;
}

}  // namespace
}  // namespace psbench::train
