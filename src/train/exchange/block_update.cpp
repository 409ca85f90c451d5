#include "train/exchange/block_update.hpp"

#include <algorithm>
#include <type_traits>

#include "common/check.hpp"

namespace psbench::train {

BlockMomentum::BlockMomentum(std::span<const float> initial, float momentum, float learning_rate, bool nesterov)
    : previous_(initial.size()),
      smoothed_(initial.size()),
      momentum_(momentum),
      learning_rate_(learning_rate),
      nesterov_(nesterov) {
  std::copy(initial.begin(), initial.end(), previous_.span().begin());
  std::fill(smoothed_.span().begin(), smoothed_.span().end(), 0.0F);
}

void BlockMomentum::delta(std::span<const float> parameters, std::span<float> delta) const {
  const std::span<const float> previous = previous_.span();
  PSBENCH_CHECK(parameters.size() == previous.size() && delta.size() == previous.size())
      << "a block delta of " << parameters.size() << " parameters into " << delta.size() << " values, not "
      << previous.size();
  for (std::size_t i = 0; i < previous.size(); ++i) delta[i] = previous[i] - parameters[i];
}

namespace {

// The block update over n values: parameters = previous - f - lookahead f, f = momentum smoothed + gain sum; with
// kCommit also smoothed = f and previous = parameters (the next block starts).
template <bool kCommit>
void block_update(const float* sum, float* parameters, std::conditional_t<kCommit, float*, const float*> previous,
                  std::conditional_t<kCommit, float*, const float*> smoothed, std::size_t n, float momentum, float gain,
                  float lookahead) {
  for (std::size_t i = 0; i < n; ++i) {
    const float filtered = momentum * smoothed[i] + gain * sum[i];
    const float weight = previous[i] - filtered - lookahead * filtered;
    parameters[i] = weight;
    if constexpr (kCommit) {
      smoothed[i] = filtered;
      previous[i] = weight;
    }
  }
}

}  // namespace

void BlockMomentum::apply(std::span<const float> sum, std::span<float> parameters) {
  check_sizes(sum, parameters);
  block_update<true>(sum.data(), parameters.data(), previous_.span().data(), smoothed_.span().data(), sum.size(),
                     momentum_, (1.0F - momentum_) * learning_rate_, nesterov_ ? momentum_ : 0.0F);
}

void BlockMomentum::preview(std::span<const float> sum, std::span<float> parameters) const {
  check_sizes(sum, parameters);
  const std::span<const float> previous = previous_.span();
  const std::span<const float> smoothed = smoothed_.span();
  block_update<false>(sum.data(), parameters.data(), previous.data(), smoothed.data(), sum.size(), momentum_,
                      (1.0F - momentum_) * learning_rate_, nesterov_ ? momentum_ : 0.0F);
}

void BlockMomentum::check_sizes(std::span<const float> sum, std::span<const float> parameters) const {
  PSBENCH_CHECK(sum.size() == previous_.span().size() && parameters.size() == previous_.span().size())
      << "a block update of " << sum.size() << " sums into " << parameters.size() << " parameters, not "
      << previous_.span().size();
}

BlockClock::BlockClock(std::uint64_t block_samples, std::uint64_t largest_partition, std::uint64_t batch)
    : block_samples_(block_samples),
      largest_partition_(largest_partition),
      batch_(batch),
      steps_per_epoch_(static_cast<std::size_t>(batch > 0 ? (largest_partition + batch - 1) / batch : 0)) {
  PSBENCH_CHECK(block_samples > 0 && batch > 0) << "blocks of " << block_samples << " samples, batch " << batch;
}

bool BlockClock::advance(std::size_t step) {
  const std::uint64_t first = static_cast<std::uint64_t>(step) * batch_;
  since_block_ += first < largest_partition_ ? std::min(batch_, largest_partition_ - first) : 0;
  if (since_block_ < block_samples_ && step + 1 < steps_per_epoch_) return false;
  since_block_ = 0;
  return true;
}

}  // namespace psbench::train
