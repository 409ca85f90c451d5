#include "ps/sgd.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace psbench::ps {
namespace {

TEST(Sgd, PlainStepSubtractsRateTimesGradient) {
  SgdOptimizer sgd(3, SgdConfig{0.5F, 0.0F});
  std::vector<float> w{1.0F, 2.0F, 3.0F};
  const std::vector<float> g{2.0F, -4.0F, 0.0F};
  sgd.apply(w, g);
  EXPECT_FLOAT_EQ(w[0], 0.0F);
  EXPECT_FLOAT_EQ(w[1], 4.0F);
  EXPECT_FLOAT_EQ(w[2], 3.0F);
}

TEST(Sgd, MomentumAccumulatesVelocity) {
  SgdOptimizer sgd(1, SgdConfig{0.1F, 0.9F});
  std::vector<float> w{1.0F};
  const std::vector<float> g{1.0F};
  sgd.apply(w, g);  // v = 1, w = 0.9
  EXPECT_FLOAT_EQ(w[0], 0.9F);
  sgd.apply(w, g);  // v = 1.9, w = 0.71
  EXPECT_NEAR(w[0], 0.71F, 1e-6F);
  sgd.apply(w, g);  // v = 2.71, w = 0.439
  EXPECT_NEAR(w[0], 0.439F, 1e-6F);
}

TEST(Sgd, SameInputsGiveBitIdenticalResults) {
  SgdOptimizer first(4, SgdConfig{0.01F, 0.9F});
  SgdOptimizer second(4, SgdConfig{0.01F, 0.9F});
  std::vector<float> a{0.1F, 0.2F, 0.3F, 0.4F};
  std::vector<float> b = a;
  const std::vector<float> g{0.7F, -0.3F, 1e-3F, 5.0F};
  for (int i = 0; i < 10; ++i) {
    first.apply(a, g);
    second.apply(b, g);
  }
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace psbench::ps
