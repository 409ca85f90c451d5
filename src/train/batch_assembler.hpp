#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "data/loader.hpp"

namespace psbench::train {

/// Assembles one shuffled batch into the contiguous float32 buffers that the model reads, normalising each
/// sample from its stored type on the way (data::StoredImages::normalise); the buffers are sized once for
/// the largest batch, so filling allocates nothing.
class BatchAssembler {
 public:
  /// Buffers for up to batch samples of samples' shape.
  BatchAssembler(const data::Samples& samples, std::size_t batch);
  /// Normalises the samples at the given local indices (at most batch of them) into the front of the buffers.
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
