#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/splitmix64.hpp"

namespace psbench::train {

/// The generator seed of one worker's shuffle in one epoch, mixed from the run's seed, the epoch and the
/// worker index, so every (seed, epoch, worker) gets an independent, reproducible order.
std::uint64_t shuffle_seed(std::uint64_t seed, std::uint32_t epoch, std::uint32_t worker);

/// Number of steps that cover samples at batch (the last step takes the remainder when batch does not divide).
std::size_t steps_per_epoch(std::size_t samples, std::size_t batch);

/// A worker's visiting order of its partition (indices 0..n-1), reshuffled every epoch in place;
/// the index buffer is allocated once.
class EpochOrder {
 public:
  /// An order over samples local indices for one worker.
  EpochOrder(std::size_t samples, std::uint64_t seed, std::uint32_t worker);
  /// Resets to the identity and applies the Fisher-Yates shuffle of this epoch.
  void shuffle(std::uint32_t epoch);
  /// The indices of step's batch (batch values, fewer for the last step of an uneven epoch).
  [[nodiscard]] std::span<const std::uint32_t> batch(std::size_t step, std::size_t batch) const;
  /// The whole order of the current epoch.
  [[nodiscard]] std::span<const std::uint32_t> indices() const { return indices_; }

 private:
  std::vector<std::uint32_t> indices_;
  std::uint64_t seed_;
  std::uint32_t worker_;
};

}  // namespace psbench::train
