#include "train/evaluation.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/bulk_memory.hpp"
#include "common/error.hpp"
#include "data/normalization.hpp"

namespace psbench::train {
namespace {

// 300 uint8 samples of 1 x 4 x 4 (two full passes of 128 and a ragged tail of 44), 3 classes.
data::Samples pixel_samples(std::vector<float>& normalised) {
  data::Samples samples;
  samples.shape = {1, 4, 4};
  samples.num_classes = 3;
  constexpr std::size_t kCount = 300;
  BulkVector<std::uint8_t> pixels(kCount * 16);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>((i * 37 + i / 16) % 256);
  const std::vector<double> mean{0.4};
  const std::vector<double> stddev{0.3};
  normalised.resize(pixels.size());
  data::Normalizer(samples.shape, mean, stddev).apply(pixels, normalised);
  samples.images = data::StoredImages::from_pixels(samples.shape, std::move(pixels), mean, stddev);
  for (std::size_t i = 0; i < kCount; ++i) samples.labels.push_back(static_cast<std::int32_t>(i % 3));
  return samples;
}

TEST(EvaluateOn, NormalisingBatchByBatchGivesBitIdenticalResultsToAFullyNormalisedCopy) {
  std::vector<float> normalised;
  const data::Samples test = pixel_samples(normalised);
  const nn::InputShape input{1, 4, 4};
  nn::Model model("mlp:8", input, 3, 16, 5, 1);
  const nn::Evaluation expected = model.evaluate(normalised.data(), test.labels.data(), test.count());
  const Evaluation evaluation = evaluate_on(model, test, input);
  EXPECT_EQ(evaluation.samples, 300);
  EXPECT_EQ(evaluation.accuracy, static_cast<double>(expected.correct) / 300.0);
  EXPECT_EQ(evaluation.mean_loss, expected.loss_sum / 300.0);  // exact: the same sums in the same order
  EXPECT_GT(evaluation.mean_loss, 0.0);
}

TEST(EvaluateOn, ATestSplitOfAnotherShapeIsAUserError) {
  std::vector<float> normalised;
  const data::Samples test = pixel_samples(normalised);
  const nn::InputShape input{1, 2, 8};
  nn::Model model("mlp:8", input, 3, 16, 5, 1);
  EXPECT_THROW(evaluate_on(model, test, input), UserError);
}

}  // namespace
}  // namespace psbench::train
