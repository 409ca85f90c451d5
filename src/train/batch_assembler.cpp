#include "train/batch_assembler.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::train {

BatchAssembler::BatchAssembler(const data::Samples& samples, std::size_t batch)
    : samples_(samples), values_(samples.shape.values()), images_(batch * values_), labels_(batch) {}

void BatchAssembler::fill(std::span<const std::uint32_t> indices) {
  PSBENCH_CHECK(indices.size() <= labels_.size()) << "batch of " << indices.size() << " exceeds the buffers";
  for (std::size_t row = 0; row < indices.size(); ++row) {
    const std::size_t sample = indices[row];
    PSBENCH_CHECK(sample < samples_.count()) << "sample " << sample << " is outside the partition";
    const auto source = samples_.images.begin() + static_cast<std::ptrdiff_t>(sample * values_);
    std::copy(source, source + static_cast<std::ptrdiff_t>(values_),
              images_.begin() + static_cast<std::ptrdiff_t>(row * values_));
    labels_[row] = samples_.labels[sample];
  }
}

}  // namespace psbench::train
