#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "data/loader.hpp"

namespace psbench::train {

/// Assembles one shuffled batch into the float32 rows that the model reads (nn::Model::input_row_values apart),
/// normalising each sample from its stored type on the way (data::StoredImages::normalise); the buffers are sized
/// once for the largest batch, so filling allocates nothing.
class BatchAssembler {
 public:
  /// Buffers for up to batch samples of samples' shape, each row_values floats after the previous one's start (at
  /// least a sample's values; what lies past a sample stays zero).
  BatchAssembler(const data::Samples& samples, std::size_t batch, std::size_t row_values);
  /// Normalises the samples at the given local indices (at most batch of them) into the front of the buffers.
  void fill(std::span<const std::uint32_t> indices);
  /// Images of the batch, NCHW float32, one row of row_values each.
  [[nodiscard]] const float* images() const { return images_.data(); }
  /// Labels of the batch.
  [[nodiscard]] const std::int32_t* labels() const { return labels_.data(); }

 private:
  const data::Samples& samples_;
  std::size_t values_;
  std::size_t row_values_;
  std::vector<float> images_;
  std::vector<std::int32_t> labels_;
};

}  // namespace psbench::train
