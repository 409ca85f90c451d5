// perf's closed-form parameter and FLOP counts against src/nn's NetworkPlan (perf cannot link nn).
#include "perf/model_shape.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "nn/network_plan.hpp"

namespace psbench::perf {
namespace {

TEST(ModelShape, AgreesWithTheNetworkPlan) {
  for (const std::string spec : {"mlp:512,256", "mlp:64", "cnn"}) {
    for (const InputShape input : {InputShape{1, 28, 28, 10}, InputShape{3, 32, 32, 100}}) {
      const nn::NetworkPlan plan = nn::plan_network(spec, {input.channels, input.height, input.width}, input.classes);
      const ModelShape shape = model_shape(spec, input);
      EXPECT_EQ(shape.parameters, plan.parameter_count) << spec;
      EXPECT_DOUBLE_EQ(shape.flops_per_sample * 64, plan.flops_per_step(64)) << spec;
    }
  }
}

TEST(ModelShape, KnownCounts) {
  EXPECT_EQ(model_shape("mlp:512,256", {}).parameters, 535818U);  // 784*512+512 + 512*256+256 + 256*10+10
  EXPECT_EQ(model_shape("cnn", {}).parameters, 3274634U);
}

TEST(ModelShape, RefusesAnUnknownSpec) { EXPECT_THROW(model_shape("resnet", {}), UserError); }

}  // namespace
}  // namespace psbench::perf
