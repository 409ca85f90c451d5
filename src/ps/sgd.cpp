#include "ps/sgd.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::ps {

SgdOptimizer::SgdOptimizer(std::size_t size, SgdConfig config)
    : config_(config), velocity_storage_(config.momentum != 0.0F ? size : 0), velocity_(velocity_storage_.span()) {}

void SgdOptimizer::apply_slice(std::span<float> weights, std::span<const float> gradients, std::size_t offset) {
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
  PSBENCH_CHECK(offset + n <= velocity_.size())
      << "slice [" << offset << ", " << offset + n << ") of a " << velocity_.size() << "-value optimizer";
  const float momentum = config_.momentum;
  float* __restrict v = velocity_.data() + offset;
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = momentum * v[i] + g[i];
    w[i] -= rate * v[i];
  }
}

namespace {

// Values updated before they are copied out: the block is still in L1 when it is read again.
constexpr std::size_t kCopyBlock = 1024;

}  // namespace

void SgdOptimizer::apply_scaled(std::span<float> weights, std::span<float> gradients, float scale) {
  PSBENCH_CHECK(weights.size() == gradients.size())
      << weights.size() << " weights, " << gradients.size() << " gradients";
  for (std::size_t begin = 0; begin < weights.size(); begin += kCopyBlock) {
    const std::size_t n = std::min(kCopyBlock, weights.size() - begin);
    float* __restrict block = gradients.data() + begin;
    for (std::size_t i = 0; i < n; ++i) block[i] *= scale;
    apply_slice(weights.subspan(begin, n), gradients.subspan(begin, n), begin);
  }
}

void SgdOptimizer::apply_slice_into(std::span<float> weights, std::span<const float> gradients, std::size_t offset,
                                    std::span<float> copy) {
  PSBENCH_CHECK(weights.size() == gradients.size() && weights.size() == copy.size())
      << weights.size() << " weights, " << gradients.size() << " gradients, " << copy.size() << " copies";
  PSBENCH_CHECK(velocity_.empty() || offset + weights.size() <= velocity_.size())
      << "slice [" << offset << ", " << offset + weights.size() << ") of a " << velocity_.size() << "-value optimizer";
  for (std::size_t begin = 0; begin < weights.size(); begin += kCopyBlock) {
    const std::size_t n = std::min(kCopyBlock, weights.size() - begin);
    apply_slice(weights.subspan(begin, n), gradients.subspan(begin, n), offset + begin);
    std::copy_n(weights.data() + begin, n, copy.data() + begin);
  }
}

void SgdOptimizer::restore_velocity(std::span<const float> values) {
  if (velocity_.empty()) return;
  PSBENCH_CHECK(values.size() == velocity_.size())
      << "restoring " << values.size() << " velocity values into a " << velocity_.size() << "-value optimizer";
  std::copy(values.begin(), values.end(), velocity_.begin());
}

}  // namespace psbench::ps
