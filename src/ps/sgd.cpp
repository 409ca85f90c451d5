#include "ps/sgd.hpp"

#include "common/check.hpp"

namespace psbench::ps {

SgdOptimizer::SgdOptimizer(std::size_t size, SgdConfig config)
    : config_(config), velocity_(config.momentum != 0.0F ? size : 0, 0.0F) {}

void SgdOptimizer::apply(std::span<float> weights, std::span<const float> gradients) {
  PSBENCH_CHECK(weights.size() == gradients.size())
      << weights.size() << " weights, " << gradients.size() << " gradients";
  const float rate = config_.learning_rate;
  float* __restrict w = weights.data();
  const float* __restrict g = gradients.data();
  const std::size_t n = weights.size();
  if (velocity_.empty()) {
    for (std::size_t i = 0; i < n; ++i) w[i] -= rate * g[i];
    return;
  }
  PSBENCH_CHECK(velocity_.size() == n) << "optimizer built for " << velocity_.size() << " values, given " << n;
  const float momentum = config_.momentum;
  float* __restrict v = velocity_.data();
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = momentum * v[i] + g[i];
    w[i] -= rate * v[i];
  }
}

}  // namespace psbench::ps
