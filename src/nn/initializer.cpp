#include "nn/initializer.hpp"

#include <cmath>
#include <numbers>

#include "common/check.hpp"

namespace psbench::nn {
namespace {

/// splitmix64: a tiny generator whose output is fixed by its definition, not by a library version.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }

  /// Uniform in (0, 1], from the top 53 bits.
  double uniform() { return (static_cast<double>(next() >> 11U) + 1.0) * 0x1.0p-53; }

  /// Standard normal (Box-Muller, one value per pair of uniforms).
  double normal() {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(2.0 * std::numbers::pi * uniform());
  }

 private:
  std::uint64_t state_;
};

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
      for (float& w : weights) w = static_cast<float>(deviation * generator.normal());
    } else {
      const double limit = std::sqrt(6.0 / (fan_in + fan_out));
      for (float& w : weights) w = static_cast<float>(limit * (2.0 * generator.uniform() - 1.0));
    }
    for (float& b : parameters.subspan(layer.bias_offset, layer.bias_count)) b = 0.0F;
  }
}

}  // namespace psbench::nn
