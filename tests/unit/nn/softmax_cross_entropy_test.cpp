#include "nn/softmax_cross_entropy.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

namespace psbench::nn {
namespace {

TEST(SoftmaxCrossEntropy, EqualLogitsGiveLogOfClassCount) {
  const std::array<float, 4> logits{0.5F, 0.5F, 0.5F, 0.5F};
  const std::array<std::int32_t, 1> labels{2};
  std::array<float, 4> diff{};
  const BatchLoss loss = softmax_cross_entropy(logits.data(), labels.data(), 1, 4, diff.data(), 1.0F);
  EXPECT_NEAR(loss.loss_sum, std::log(4.0), 1e-12);
  EXPECT_FLOAT_EQ(diff[0], 0.25F);
  EXPECT_FLOAT_EQ(diff[1], 0.25F);
  EXPECT_FLOAT_EQ(diff[2], -0.75F);
  EXPECT_FLOAT_EQ(diff[3], 0.25F);
  EXPECT_EQ(loss.correct, 0);  // ties go to the first class
}

TEST(SoftmaxCrossEntropy, MatchesHandComputedValuesOverABatch) {
  // Sample 0: logits (1, 2, 3), label 2. softmax = (0.0900306, 0.2447285, 0.6652410); loss = 0.4076059.
  // Sample 1: logits (0, 0, ln 2) = (1, 1, 2)/4 in probability, label 0; loss = ln 4 = 1.3862944.
  const std::array<float, 6> logits{1.0F, 2.0F, 3.0F, 0.0F, 0.0F, static_cast<float>(std::log(2.0))};
  const std::array<std::int32_t, 2> labels{2, 0};
  std::array<float, 6> diff{};
  const BatchLoss loss = softmax_cross_entropy(logits.data(), labels.data(), 2, 3, diff.data(), 0.5F);
  EXPECT_NEAR(loss.loss_sum, 0.4076059 + 1.3862944, 1e-6);
  EXPECT_EQ(loss.correct, 1);
  const std::array<float, 6> expected{0.0900306F * 0.5F,     0.2447285F * 0.5F, (0.6652410F - 1.0F) * 0.5F,
                                      (0.25F - 1.0F) * 0.5F, 0.25F * 0.5F,      0.5F * 0.5F};
  for (std::size_t i = 0; i < diff.size(); ++i) EXPECT_NEAR(diff[i], expected[i], 1e-6) << "element " << i;
}

TEST(SoftmaxCrossEntropy, StaysFiniteForHugeLogits) {
  const std::array<float, 2> logits{1000.0F, -1000.0F};
  const std::array<std::int32_t, 1> labels{1};
  std::array<float, 2> diff{};
  const BatchLoss loss = softmax_cross_entropy(logits.data(), labels.data(), 1, 2, diff.data(), 1.0F);
  EXPECT_NEAR(loss.loss_sum, 2000.0, 1e-9);
  EXPECT_FLOAT_EQ(diff[0], 1.0F);
  EXPECT_FLOAT_EQ(diff[1], -1.0F);
  EXPECT_EQ(loss.correct, 0);
}

TEST(SoftmaxCrossEntropy, GradientRowsSumToZeroAndDiffIsOptional) {
  const std::array<float, 5> logits{0.3F, -1.2F, 2.5F, 0.0F, 0.7F};
  const std::array<std::int32_t, 1> labels{2};
  std::array<float, 5> diff{};
  const BatchLoss with_diff = softmax_cross_entropy(logits.data(), labels.data(), 1, 5, diff.data(), 1.0F);
  double sum = 0.0;
  for (const float d : diff) sum += d;
  EXPECT_NEAR(sum, 0.0, 1e-6);
  const BatchLoss without_diff = softmax_cross_entropy(logits.data(), labels.data(), 1, 5, nullptr, 0.0F);
  EXPECT_EQ(with_diff.loss_sum, without_diff.loss_sum);
  EXPECT_EQ(without_diff.correct, 1);
}

TEST(SoftmaxCrossEntropyDeathTest, RejectsALabelOutsideTheClasses) {
  const std::array<float, 2> logits{0.0F, 0.0F};
  const std::array<std::int32_t, 1> labels{2};
  EXPECT_DEATH(softmax_cross_entropy(logits.data(), labels.data(), 1, 2, nullptr, 0.0F), "outside \\[0, 2\\)");
}

}  // namespace
}  // namespace psbench::nn
