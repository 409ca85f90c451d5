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

namespace {

// One compensated block: g' = g + lambda*g*g*(w - b), then v = m*v + g' (with momentum), w -= rate*v (or rate*g');
// Refresh writes the fresh w into b, and c (when not null) receives it too. Templated so each variant's loop has
// no branch in it and vectorizes.
template <bool Momentum, bool Refresh>
void compensated_block(float* __restrict w, const float* __restrict g, float* __restrict v, float* __restrict b,
                       float* __restrict c, std::size_t n, float rate, float momentum, float lambda) {
  for (std::size_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float compensated = gi + lambda * gi * gi * (w[i] - b[i]);
    if constexpr (Momentum) {
      v[i] = momentum * v[i] + compensated;
      w[i] -= rate * v[i];
    } else {
      w[i] -= rate * compensated;
    }
    if constexpr (Refresh) b[i] = w[i];
  }
  if (c != nullptr) std::copy_n(w, n, c);
}

}  // namespace

void SgdOptimizer::apply_compensated_slice(std::span<float> weights, std::span<const float> gradients,
                                           std::size_t offset, std::span<float> sent, float lambda, bool refresh,
                                           std::span<float> copy) {
  PSBENCH_CHECK(weights.size() == gradients.size() && weights.size() == sent.size() &&
                (copy.empty() || copy.size() == weights.size()))
      << weights.size() << " weights, " << gradients.size() << " gradients, " << sent.size() << " sent, " << copy.size()
      << " copies";
  PSBENCH_CHECK(velocity_.empty() || offset + weights.size() <= velocity_.size())
      << "slice [" << offset << ", " << offset + weights.size() << ") of a " << velocity_.size() << "-value optimizer";
  const float rate = config_.learning_rate;
  const float momentum = config_.momentum;
  const bool with_momentum = !velocity_.empty();
  for (std::size_t begin = 0; begin < weights.size(); begin += kCopyBlock) {
    const std::size_t n = std::min(kCopyBlock, weights.size() - begin);
    float* w = weights.data() + begin;
    const float* g = gradients.data() + begin;
    float* v = with_momentum ? velocity_.data() + offset + begin : nullptr;
    float* b = sent.data() + begin;
    float* c = copy.empty() ? nullptr : copy.data() + begin;
    if (with_momentum) {
      if (refresh) {
        compensated_block<true, true>(w, g, v, b, c, n, rate, momentum, lambda);
      } else {
        compensated_block<true, false>(w, g, v, b, c, n, rate, momentum, lambda);
      }
    } else if (refresh) {
      compensated_block<false, true>(w, g, v, b, c, n, rate, momentum, lambda);
    } else {
      compensated_block<false, false>(w, g, v, b, c, n, rate, momentum, lambda);
    }
  }
}

void SgdOptimizer::restore_velocity(std::span<const float> values) {
  if (velocity_.empty()) return;
  PSBENCH_CHECK(values.size() == velocity_.size())
      << "restoring " << values.size() << " velocity values into a " << velocity_.size() << "-value optimizer";
  std::copy(values.begin(), values.end(), velocity_.begin());
}

void SgdOptimizer::reset_velocity() { std::fill(velocity_.begin(), velocity_.end(), 0.0F); }

}  // namespace psbench::ps
