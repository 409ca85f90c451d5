#include "nn/initializer.hpp"

#include <cmath>
#include <numbers>

#include "common/check.hpp"
#include "common/splitmix64.hpp"

namespace psbench::nn {
namespace {

/// Standard normal (Box-Muller, one value per pair of uniforms).
double normal(SplitMix64& generator) {
  const double radius = std::sqrt(-2.0 * std::log(generator.uniform()));
  return radius * std::cos(2.0 * std::numbers::pi * generator.uniform());
}

}  // namespace

void initialise_parameters(const NetworkPlan& plan, std::uint64_t seed, std::span<float> parameters) {
  PSBENCH_CHECK(parameters.size() == plan.parameter_count) << parameters.size() << " != " << plan.parameter_count;
  SplitMix64 generator(seed);
  for (const LayerPlan& layer : plan.layers) {
    if (layer.weights_count == 0) continue;
    const auto outputs = static_cast<double>(layer.bias_count);
    const double fan_in = static_cast<double>(layer.weights_count) / outputs;
    const double receptive =
        layer.kind == LayerKind::kConvolution ? static_cast<double>(layer.kernel * layer.kernel) : 1.0;
    const double fan_out = outputs * receptive;
    std::span<float> weights = parameters.subspan(layer.weights_offset, layer.weights_count);
    if (layer.init == InitKind::kHe) {
      const double deviation = std::sqrt(2.0 / fan_in);
      for (float& w : weights) w = static_cast<float>(deviation * normal(generator));
    } else {
      const double limit = std::sqrt(6.0 / (fan_in + fan_out));
      for (float& w : weights) w = static_cast<float>(limit * (2.0 * generator.uniform() - 1.0));
    }
    for (float& b : parameters.subspan(layer.bias_offset, layer.bias_count)) b = 0.0F;
  }
}

}  // namespace psbench::nn
