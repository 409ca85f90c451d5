#pragma once

#include <span>

#include "common/aligned_buffer.hpp"

namespace psbench::ps {

/// Learning rate and momentum of plain SGD.
struct SgdConfig {
  float learning_rate = 0.01F;  ///< step size
  float momentum = 0.0F;        ///< 0 for plain SGD
};

/// SGD with optional heavy-ball momentum (v = m*v + g; w -= lr*v), over a fixed-size vector.
/// The local trainer and the servers use this same code, so their updates agree bit for bit.
class SgdOptimizer {
 public:
  /// Prepares state for a vector of size values.
  SgdOptimizer(std::size_t size, SgdConfig config);
  /// Applies one update of weights with gradients (both of the constructed size).
  void apply(std::span<float> weights, std::span<const float> gradients) { apply_slice(weights, gradients, 0); }
  /// Applies the update to a slice: weights and gradients hold values [offset, offset + size) of the vector,
  /// so a vector updated slice by slice ends bit-identical to one updated whole.
  void apply_slice(std::span<float> weights, std::span<const float> gradients, std::size_t offset);
  /// apply() of gradients scaled by scale (in place, block by block while the block is in L1: one pass over
  /// memory); the weights end bit-identical to scaling gradients first and applying them after.
  void apply_scaled(std::span<float> weights, std::span<float> gradients, float scale);
  /// apply_slice that also writes the fresh weights into copy (of the slice's size) in the same pass, block
  /// by block while the block is in L1: one read of w, g and v, one write of w, v and copy, the copy by plain
  /// stores, so that it is in the shared cache when the other core reads it (non-temporal stores would send
  /// it to memory, which the reader then waits on); the weights end bit-identical to apply_slice's.
  void apply_slice_into(std::span<float> weights, std::span<const float> gradients, std::size_t offset,
                        std::span<float> copy);
  /// Delay-compensated apply_slice (DC-ASGD, Zheng et al. 2017): each gradient value g becomes
  /// g' = g + lambda * g * g * (w - sent) with w the weight before this update and sent the pushing worker's copy of
  /// the slice (the weights it was last sent), then the usual step (momentum as in apply_slice) takes g'. With
  /// refresh, the fresh weights are written into sent as well (the reply goes out now, so the worker's copy becomes
  /// them); copy, when not empty, receives them too (apply_slice_into's reply). One pass, block by block; nothing
  /// is allocated. With lambda = 0 the weights end bit-identical to apply_slice's (for finite sent and weights).
  void apply_compensated_slice(std::span<float> weights, std::span<const float> gradients, std::size_t offset,
                               std::span<float> sent, float lambda, bool refresh, std::span<float> copy = {});
  /// The momentum state (empty for plain SGD): what a checkpoint saves.
  [[nodiscard]] std::span<const float> velocity() const { return velocity_; }
  /// Restores the momentum state saved from an optimizer of the same size; ignored for plain SGD.
  void restore_velocity(std::span<const float> values);
  /// Sets the momentum state to zero (a block learner's reset after each block).
  void reset_velocity();

 private:
  SgdConfig config_;
  AlignedBuffer velocity_storage_;  // in huge pages from 2 MiB on, staggered from the weights it updates beside
  std::span<float> velocity_;       // its values (empty for plain SGD)
};

}  // namespace psbench::ps
