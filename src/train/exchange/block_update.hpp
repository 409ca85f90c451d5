#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/aligned_buffer.hpp"

namespace psbench::train {

/// BMUF's block update (Chen & Huo 2016; CNTK's BlockMomentumSGD, Source/1BitSGD/BlockMomentumSGD.h), per
/// parameter, once per block: with sum the allreduced sum of the W workers' block deltas w_prev - w,
/// smoothed = bm * smoothed + (1 - bm) * blr * sum; w = w_prev - smoothed; with Nesterov, w -= bm * smoothed;
/// then w_prev = w. CNTK scales the sum, not the mean: with its default bm = 1 - 1/W, (1 - bm) * sum is the
/// workers' mean delta. Both vectors are allocated once, at construction.
class BlockMomentum {
 public:
  /// Starts from the workers' common initial parameters, with a zero smoothed update.
  BlockMomentum(std::span<const float> initial, float momentum, float learning_rate, bool nesterov);
  /// Writes this worker's block delta w_prev - parameters into delta (the allreduce's input).
  void delta(std::span<const float> parameters, std::span<float> delta) const;
  /// Applies the summed deltas to parameters (every worker ends with the same values) and starts the next block.
  void apply(std::span<const float> sum, std::span<float> parameters);
  /// Writes into parameters what apply(sum, parameters) would, without starting the next block (the model a
  /// synchronisation now would give).
  void preview(std::span<const float> sum, std::span<float> parameters) const;
  /// The smoothed block update so far.
  [[nodiscard]] std::span<const float> smoothed() const { return smoothed_.span(); }

 private:
  void check_sizes(std::span<const float> sum, std::span<const float> parameters) const;
  AlignedBuffer previous_;  // w_prev: the parameters at the last synchronisation
  AlignedBuffer smoothed_;
  float momentum_;
  float learning_rate_;
  bool nesterov_;
};

/// Says when a block ends, the same on every worker without a message: all workers take the same steps per
/// epoch (those of the largest partition; a worker out of batches takes steps without one), and each step counts
/// the samples the largest partition's worker trains on in it. A block ends at the first step that brings the
/// count since the last block to block_samples or more, and at the epoch's last step (as CNTK's OnEpochEnd
/// synchronises the partial block), so every epoch ends on a common model. With equal partitions the count is each
/// worker's own sample count.
class BlockClock {
 public:
  /// A clock of blocks of block_samples, for workers whose largest partition holds largest_partition samples.
  BlockClock(std::uint64_t block_samples, std::uint64_t largest_partition, std::uint64_t batch);
  /// Counts step (of an epoch, from 0); true when a block ends with it.
  bool advance(std::size_t step);
  /// True while steps have been counted since the last block ended (a run stopped within an epoch).
  [[nodiscard]] bool pending() const { return since_block_ > 0; }
  /// Steps per epoch: the largest partition's batches.
  [[nodiscard]] std::size_t steps_per_epoch() const { return steps_per_epoch_; }

 private:
  std::uint64_t block_samples_;
  std::uint64_t largest_partition_;
  std::uint64_t batch_;
  std::size_t steps_per_epoch_;
  std::uint64_t since_block_ = 0;  // samples counted since the last block ended
};

}  // namespace psbench::train
