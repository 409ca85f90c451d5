#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "data/loader.hpp"

namespace psbench::train {

/// Copies the samples of one shuffled batch into contiguous buffers that the model reads; the buffers
/// are sized once for the largest batch, so filling allocates nothing.
class BatchAssembler {
 public:
  /// Buffers for up to batch samples of samples' shape.
  BatchAssembler(const data::Samples& samples, std::size_t batch);
  /// Copies the samples at the given local indices (at most batch of them) to the front of the buffers.
  void fill(std::span<const std::uint32_t> indices);
  /// Images of the batch, NCHW float32.
  [[nodiscard]] const float* images() const { return images_.data(); }
  /// Labels of the batch.
  [[nodiscard]] const std::int32_t* labels() const { return labels_.data(); }

 private:
  const data::Samples& samples_;
  std::size_t values_;
  std::vector<float> images_;
  std::vector<std::int32_t> labels_;
};

}  // namespace psbench::train
