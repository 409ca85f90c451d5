#include "train/epoch_order.hpp"

#include <algorithm>
#include <numeric>

#include "common/check.hpp"

namespace psbench::train {

std::uint64_t shuffle_seed(std::uint64_t seed, std::uint32_t epoch, std::uint32_t worker) {
  SplitMix64 mixer(seed);
  std::uint64_t mixed = mixer.next();
  mixed ^= (static_cast<std::uint64_t>(epoch) << 32U) | worker;
  return SplitMix64(mixed).next();
}

std::size_t steps_per_epoch(std::size_t samples, std::size_t batch) {
  PSBENCH_CHECK(batch > 0) << "batch must be positive";
  return (samples + batch - 1) / batch;
}

EpochOrder::EpochOrder(std::size_t samples, std::uint64_t seed, std::uint32_t worker)
    : indices_(samples), seed_(seed), worker_(worker) {
  std::iota(indices_.begin(), indices_.end(), 0U);
}

void EpochOrder::shuffle(std::uint32_t epoch) {
  std::iota(indices_.begin(), indices_.end(), 0U);
  SplitMix64 random(shuffle_seed(seed_, epoch, worker_));
  for (std::size_t i = indices_.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(random.below(i));
    std::swap(indices_[i - 1], indices_[j]);
  }
}

std::span<const std::uint32_t> EpochOrder::batch(std::size_t step, std::size_t batch) const {
  const std::size_t begin = step * batch;
  PSBENCH_CHECK(begin < indices_.size()) << "step " << step << " is past the epoch's " << indices_.size() << " samples";
  const std::size_t end = std::min(begin + batch, indices_.size());
  return std::span<const std::uint32_t>(indices_).subspan(begin, end - begin);
}

}  // namespace psbench::train
