#include "nn/network_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "shapes.hpp"

namespace psbench::nn {
namespace {

using testing::kMnist;

TEST(NetworkPlan, ParameterCountsMatchTheClosedForm) {
  // mlp: sum over layers of in*out + out.
  EXPECT_EQ(parameter_count_for("mlp:512,256", kMnist, 10), 784U * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
  EXPECT_EQ(parameter_count_for("mlp:512,256", kMnist, 10), 535818U);
  EXPECT_EQ(parameter_count_for("mlp:7", {2, 3, 3}, 4), 18U * 7 + 7 + 7 * 4 + 4);
  EXPECT_EQ(parameter_count_for("mlp:1,1,1", {1, 1, 1}, 2), 2U + 2 + 2 + 4);
  // cnn: conv 5x5x32, conv 5x5x64 (same padding), two 2x2 pools, fc 1024, fc classes.
  const std::size_t convolutions_on_one_channel = 25U * 1 * 32 + 32 + 25U * 32 * 64 + 64;
  EXPECT_EQ(parameter_count_for("cnn", kMnist, 10), convolutions_on_one_channel + 7U * 7 * 64 * 1024 + 1024 + 10250);
  EXPECT_EQ(parameter_count_for("cnn", kMnist, 10), 3274634U);
  EXPECT_EQ(parameter_count_for("cnn", {3, 32, 32}, 10), 25U * 3 * 32 + 32 + 51264 + 8U * 8 * 64 * 1024 + 1024 + 10250);
  // Odd sides drop the ragged edge: 6 -> 3 -> 1 and 7 -> 3 -> 1, 9 -> 4 -> 2.
  EXPECT_EQ(parameter_count_for("cnn", {2, 6, 6}, 3), 25U * 2 * 32 + 32 + 51264 + 64U * 1024 + 1024 + 1024 * 3 + 3);
  EXPECT_EQ(parameter_count_for("cnn", {1, 7, 9}, 10), convolutions_on_one_channel + 128U * 1024 + 1024 + 10250);
}

TEST(NetworkPlan, LaysParametersOutContiguouslyWeightsThenBias) {
  const NetworkPlan plan = plan_network("cnn", kMnist, 10);
  ASSERT_EQ(plan.layers.size(), 9U);
  std::size_t next = 0;
  for (const LayerPlan& layer : plan.layers) {
    if (layer.weights_count == 0) continue;
    EXPECT_EQ(layer.weights_offset, next);
    EXPECT_EQ(layer.bias_offset, next + layer.weights_count);
    next = layer.bias_offset + layer.bias_count;
  }
  EXPECT_EQ(next, plan.parameter_count);
  EXPECT_EQ(plan.layers[2].out.height, 14);
  EXPECT_EQ(plan.layers[5].out.channels, 64);
  EXPECT_EQ(plan.layers[5].out.width, 7);
  EXPECT_EQ(plan.layers[0].init, InitKind::kHe);
  EXPECT_EQ(plan.layers[8].init, InitKind::kGlorot);
  EXPECT_EQ(plan.layers[8].out.channels, 10);
}

TEST(NetworkPlan, CountsFlopsOfForwardAndBothGradients) {
  const NetworkPlan plan = plan_network("mlp:512,256", kMnist, 10);
  // First layer: forward and weight gradient only; the others also compute the input gradient.
  const double macs = 784.0 * 512 * 2 + (512.0 * 256 + 256.0 * 10) * 3;
  EXPECT_DOUBLE_EQ(plan.flops_per_step(128), 2.0 * 128 * macs);
  const NetworkPlan cnn = plan_network("cnn", kMnist, 10);
  const double conv_macs = 28.0 * 28 * 32 * 25 * 2 + 14.0 * 14 * 64 * 32 * 25 * 3;
  const double fc_macs = (3136.0 * 1024 + 1024.0 * 10) * 3;
  EXPECT_DOUBLE_EQ(cnn.flops_per_step(1), 2.0 * (conv_macs + fc_macs));
}

void expect_user_error(const std::string& spec, InputShape input, int classes, const std::string& fragment) {
  try {
    (void)plan_network(spec, input, classes);
    ADD_FAILURE() << "spec '" << spec << "' was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(NetworkPlan, RejectsBadSpecsNamingThemAndTheAcceptedForms) {
  for (const std::string spec : {"resnet", "", "MLP:5", "mlp", "cnn2"}) {
    expect_user_error(spec, kMnist, 10, "model spec '" + spec + "' is not recognised");
    expect_user_error(spec, kMnist, 10, "'mlp:H1,H2,...'");
  }
  for (const std::string spec :
       {"mlp:", "mlp:0", "mlp:5,,3", "mlp:-1", "mlp:5x", "mlp:5,", "mlp: 5", "mlp:99999999999"}) {
    expect_user_error(spec, kMnist, 10, "model spec '" + spec + "' has a hidden width");
    expect_user_error(spec, kMnist, 10, "'cnn'");
  }
}

TEST(NetworkPlan, RejectsShapesAndClassCountsTheSpecCannotTake) {
  expect_user_error("cnn", {1, 3, 28}, 10, "at least 4x4 pixels");
  expect_user_error("mlp:5", {0, 28, 28}, 10, "input shape 0x28x28");
  expect_user_error("mlp:5", kMnist, 1, "class count 1");
}

}  // namespace
}  // namespace psbench::nn
