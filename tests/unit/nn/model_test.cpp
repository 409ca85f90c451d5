#include "nn/model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/error.hpp"
#include "gradient_check.hpp"
#include "nn/network_plan.hpp"
#include "shapes.hpp"

namespace psbench::nn {
namespace {

using testing::all_indices;
using testing::compare_gradient;
using testing::kMnist;
using testing::sample_indices;
using testing::uniform_values;

struct Batch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

Batch random_batch(InputShape shape, int classes, int count, std::uint32_t seed) {
  const auto values = static_cast<std::size_t>(shape.channels * shape.height * shape.width);
  Batch batch{uniform_values(values * static_cast<std::size_t>(count), -1.0F, 1.0F, seed), {}};
  std::mt19937 generator(seed + 1);
  std::uniform_int_distribution<std::int32_t> label(0, classes - 1);
  for (int i = 0; i < count; ++i) batch.labels.push_back(label(generator));
  return batch;
}

TEST(Model, ParameterCountEqualsTheClosedFormAndSizesBothVectors) {
  struct Case {
    std::string spec;
    InputShape input;
    int classes;
  };
  for (const Case& c : {Case{"mlp:512,256", kMnist, 10}, Case{"mlp:7", {2, 3, 3}, 4}, Case{"cnn", kMnist, 10},
                        Case{"cnn", {2, 6, 6}, 3}, Case{"cnn", {3, 9, 7}, 5}}) {
    Model model(c.spec, c.input, c.classes, 2, 1, 1);
    EXPECT_EQ(model.parameter_count(), parameter_count_for(c.spec, c.input, c.classes)) << c.spec;
    EXPECT_EQ(model.parameters().size(), model.parameter_count()) << c.spec;
    EXPECT_EQ(model.gradients().size(), model.parameter_count()) << c.spec;
    EXPECT_EQ(model.batch(), 2);
    EXPECT_DOUBLE_EQ(model.flops_per_step(), plan_network(c.spec, c.input, c.classes).flops_per_step(2));
  }
}

/// The batch's images laid out as model's train_step reads them: a row of model.input_row_values() floats per sample,
/// what lies past the sample's values set to fill.
std::vector<float> rows_for(const Model& model, const Batch& batch, float fill) {
  const std::size_t values = batch.images.size() / batch.labels.size();
  const std::size_t row = model.input_row_values();
  std::vector<float> rows(row * batch.labels.size(), fill);
  for (std::size_t i = 0; i < batch.labels.size(); ++i) {
    std::copy_n(batch.images.begin() + static_cast<std::ptrdiff_t>(i * values), values,
                rows.begin() + static_cast<std::ptrdiff_t>(i * row));
  }
  return rows;
}

/// Checks the whole model's gradient, tensor by tensor, against central differences of train_step's loss.
void expect_model_gradients_match(const std::string& spec, InputShape input, int classes, std::size_t per_tensor) {
  constexpr int kBatch = 3;
  // Small enough that few ReLU or max-pool kinks lie within a step, large enough that float32 rounding of the
  // loss (about 1e-7 relative) stays far below the change it measures.
  constexpr float kStep = 1e-3F;
  Model model(spec, input, classes, kBatch, 42, 1);
  const Batch batch = random_batch(input, classes, kBatch, 17);
  (void)model.train_step(batch.images.data(), batch.labels.data());
  const std::vector<float> analytic(model.gradients().begin(), model.gradients().end());
  const auto loss = [&] { return static_cast<double>(model.train_step(batch.images.data(), batch.labels.data())); };
  const NetworkPlan plan = plan_network(spec, input, classes);
  std::uint32_t seed = 1;
  for (const LayerPlan& layer : plan.layers) {
    if (layer.weights_count == 0) continue;
    for (const auto& [first, count] :
         {std::pair{layer.weights_offset, layer.weights_count}, std::pair{layer.bias_offset, layer.bias_count}}) {
      const auto result =
          compare_gradient(model.parameters(), analytic, sample_indices(first, count, per_tensor, seed++), kStep, loss);
      EXPECT_LT(result.relative_error, 1e-2) << spec << " parameters [" << first << ", " << first + count << ")";
      EXPECT_GT(result.analytic_norm, 1e-4) << spec << " parameters [" << first << ", " << first + count << ")";
    }
  }
}

TEST(Model, MlpGradientMatchesFiniteDifferences) { expect_model_gradients_match("mlp:7,5", {2, 3, 3}, 4, 1000); }

TEST(Model, CnnGradientMatchesFiniteDifferences) { expect_model_gradients_match("cnn", {2, 6, 6}, 3, 40); }

TEST(Model, PaddedRowsGiveTheStepOfTheSameWeightsOnSamplesZeroExtendedToTheRow) {
  // 1,024 values a sample (4 KiB) are read in rows of 1,040; a network on 1,040 values (not whole pages, so plain
  // rows) with the same weights and 16 zero inputs more computes the same loss and the same gradients.
  constexpr int kBatch = 3;
  constexpr std::size_t kValues = 1024;
  constexpr std::size_t kRow = 1040;
  Model padded("mlp:7,5", {1, 32, 32}, 4, kBatch, 42, 1);
  Model wide("mlp:7,5", {1, 1, kRow}, 4, kBatch, 42, 1);
  ASSERT_EQ(padded.input_row_values(), kRow);
  ASSERT_EQ(wide.input_row_values(), kRow);
  const std::span<const float> given = padded.parameters();
  const std::span<float> copied = wide.parameters();
  std::fill(copied.begin(), copied.end(), 0.0F);
  const std::size_t first_layer = 7 * kValues;
  for (std::size_t o = 0; o < 7; ++o) std::copy_n(given.begin() + o * kValues, kValues, copied.begin() + o * kRow);
  std::copy(given.begin() + first_layer, given.end(), copied.begin() + 7 * kRow);
  const Batch batch = random_batch({1, 32, 32}, 4, kBatch, 17);
  const std::vector<float> rows = rows_for(padded, batch, 0.0F);
  const float loss = padded.train_step(rows.data(), batch.labels.data());
  EXPECT_NEAR(wide.train_step(rows.data(), batch.labels.data()), loss, 1e-6 * loss);
  const std::span<const float> expected = wide.gradients();
  const std::span<const float> got = padded.gradients();
  for (std::size_t o = 0; o < 7; ++o) {
    for (std::size_t i = 0; i < kValues; ++i) {
      ASSERT_NEAR(got[o * kValues + i], expected[o * kRow + i], 1e-6) << "weight " << o << "," << i;
    }
  }
  for (std::size_t k = first_layer; k < got.size(); ++k) {
    ASSERT_NEAR(got[k], expected[7 * kRow + (k - first_layer)], 1e-6) << "parameter " << k;
  }
}

TEST(Model, OnlyAnMlpOnSamplesOfWholePagesReadsRowsALineLonger) {
  EXPECT_EQ(Model("mlp:7", {1, 32, 32}, 4, 2, 1, 1).input_row_values(), 1024U + 16U);  // 4 KiB a sample
  EXPECT_EQ(Model("mlp:7", {3, 32, 32}, 4, 2, 1, 1).input_row_values(), 3072U + 16U);  // 12 KiB
  EXPECT_EQ(Model("mlp:7", kMnist, 4, 2, 1, 1).input_row_values(), 784U);
  EXPECT_EQ(Model("cnn", {1, 32, 32}, 4, 2, 1, 1).input_row_values(), 1024U);  // a convolution reads NCHW
}

TEST(Model, PaddedRowsGiveTheLossOfTheSamplesAndNeverReadTheirGaps) {
  const Batch batch = random_batch({1, 32, 32}, 4, 4, 9);
  Model padded("mlp:16", {1, 32, 32}, 4, 4, 5, 1);
  Model zeros("mlp:16", {1, 32, 32}, 4, 4, 5, 1);
  const float loss = padded.train_step(rows_for(padded, batch, std::nanf("")).data(), batch.labels.data());
  const float zero_gap_loss = zeros.train_step(rows_for(zeros, batch, 0.0F).data(), batch.labels.data());
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_EQ(loss, zero_gap_loss);
  EXPECT_TRUE(std::ranges::equal(padded.gradients(), zeros.gradients())) << "a gap's value reached the gradient";
  const Evaluation contiguous = padded.evaluate(batch.images.data(), batch.labels.data(), 4);
  EXPECT_NEAR(contiguous.loss_sum / 4.0, loss, 1e-5 * loss);
}

TEST(Model, SameSeedAndThreadsGiveIdenticalParametersAndSteps) {
  const Batch batch = random_batch({1, 8, 8}, 4, 5, 3);
  Model first("cnn", {1, 8, 8}, 4, 5, 99, 1);
  Model second("cnn", {1, 8, 8}, 4, 5, 99, 1);
  Model other("cnn", {1, 8, 8}, 4, 5, 100, 1);
  ASSERT_TRUE(std::ranges::equal(first.parameters(), second.parameters()));
  EXPECT_FALSE(std::ranges::equal(first.parameters(), other.parameters()));
  const float first_loss = first.train_step(batch.images.data(), batch.labels.data());
  const float second_loss = second.train_step(batch.images.data(), batch.labels.data());
  EXPECT_EQ(first_loss, second_loss);
  EXPECT_TRUE(std::ranges::equal(first.gradients(), second.gradients()));
}

TEST(Model, TwoThreadsComputeTheSameStepAsOne) {
  const Batch batch = random_batch({1, 12, 12}, 4, 8, 4);
  Model one("cnn", {1, 12, 12}, 4, 8, 7, 1);
  Model two("cnn", {1, 12, 12}, 4, 8, 7, 2);
  const float one_loss = one.train_step(batch.images.data(), batch.labels.data());
  const float two_loss = two.train_step(batch.images.data(), batch.labels.data());
  EXPECT_NEAR(one_loss, two_loss, 1e-5F * one_loss);
  double difference = 0.0;
  double norm = 0.0;
  for (std::size_t i = 0; i < one.parameter_count(); ++i) {
    const double d = static_cast<double>(one.gradients()[i]) - two.gradients()[i];
    difference += d * d;
    norm += static_cast<double>(one.gradients()[i]) * one.gradients()[i];
  }
  EXPECT_LT(std::sqrt(difference / norm), 1e-5);
}

double deviation(std::span<const float> values) {
  double sum = 0.0;
  double squares = 0.0;
  for (const float v : values) {
    sum += v;
    squares += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(values.size());
  return std::sqrt(squares / static_cast<double>(values.size()) - mean * mean);
}

TEST(Model, InitialisesHeForReluLayersGlorotForTheOutputAndZeroBiases) {
  Model model("mlp:512,256", kMnist, 10, 1, 5, 1);
  const NetworkPlan plan = plan_network("mlp:512,256", kMnist, 10);
  const std::span<const float> parameters = model.parameters();
  const LayerPlan& hidden = plan.layers[0];
  EXPECT_NEAR(deviation(parameters.subspan(hidden.weights_offset, hidden.weights_count)), std::sqrt(2.0 / 784), 2e-3);
  const LayerPlan& output = plan.layers.back();
  const auto output_weights = parameters.subspan(output.weights_offset, output.weights_count);
  const double limit = std::sqrt(6.0 / (256 + 10));
  EXPECT_NEAR(deviation(output_weights), limit / std::sqrt(3.0), 0.05 * limit);
  EXPECT_LE(std::ranges::max(output_weights), limit);
  EXPECT_GE(std::ranges::min(output_weights), -limit);
  for (const LayerPlan& layer : plan.layers) {
    for (const float b : parameters.subspan(layer.bias_offset, layer.bias_count)) ASSERT_EQ(b, 0.0F);
  }
}

TEST(Model, EvaluateAgreesWithTrainingLossAndHandlesARaggedTail) {
  const Batch batch = random_batch({1, 8, 8}, 4, 300, 8);
  Model model("cnn", {1, 8, 8}, 4, 4, 11, 1);
  const float step_loss = model.train_step(batch.images.data(), batch.labels.data());
  const Evaluation first_four = model.evaluate(batch.images.data(), batch.labels.data(), 4);
  EXPECT_EQ(first_four.samples, 4);
  EXPECT_NEAR(first_four.loss_sum / 4.0, step_loss, 1e-5 * step_loss);

  const Evaluation whole = model.evaluate(batch.images.data(), batch.labels.data(), 300);
  const Evaluation head = model.evaluate(batch.images.data(), batch.labels.data(), 100);
  const Evaluation tail = model.evaluate(batch.images.data() + 100 * 64, batch.labels.data() + 100, 200);
  EXPECT_EQ(whole.samples, 300);
  EXPECT_NEAR(whole.loss_sum, head.loss_sum + tail.loss_sum, 1e-5 * whole.loss_sum);
  EXPECT_EQ(whole.correct, head.correct + tail.correct);
  EXPECT_GT(whole.correct, 0);
  EXPECT_LT(whole.correct, 300);
  EXPECT_EQ(model.evaluate(batch.images.data(), batch.labels.data(), 0).samples, 0);
}

/// Plain SGD on one fixed batch of random labels: a network that computes correct gradients memorises it.
void expect_memorises(const std::string& spec) {
  constexpr int kBatch = 16;
  const Batch batch = random_batch({1, 8, 8}, 4, kBatch, 21);
  Model model(spec, {1, 8, 8}, 4, kBatch, 3, 1);
  const float initial = model.train_step(batch.images.data(), batch.labels.data());
  float loss = initial;
  for (int step = 0; step < 100; ++step) {
    const std::span<float> parameters = model.parameters();
    const std::span<const float> gradients = model.gradients();
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] -= 0.05F * gradients[i];
    loss = model.train_step(batch.images.data(), batch.labels.data());
  }
  EXPECT_LT(loss, 0.1F * initial) << spec << " went from " << initial << " to " << loss;
  const Evaluation evaluation = model.evaluate(batch.images.data(), batch.labels.data(), kBatch);
  EXPECT_EQ(evaluation.correct, kBatch) << spec;
}

TEST(Model, MlpMemorisesABatch) { expect_memorises("mlp:64,32"); }

TEST(Model, CnnMemorisesABatch) { expect_memorises("cnn"); }

TEST(Model, RejectsBadBatchThreadsAndSpec) {
  EXPECT_THROW(Model("mlp:5", kMnist, 10, 0, 1, 1), UserError);
  EXPECT_THROW(Model("mlp:5", kMnist, 10, 4, 1, 0), UserError);
  EXPECT_THROW(Model("lstm", kMnist, 10, 4, 1, 1), UserError);
}

}  // namespace
}  // namespace psbench::nn
