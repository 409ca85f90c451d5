#include "train/batch_assembler.hpp"

#include "common/check.hpp"

namespace psbench::train {

BatchAssembler::BatchAssembler(const data::Samples& samples, std::size_t batch, std::size_t row_values)
    : samples_(samples),
      values_(samples.shape.values()),
      row_values_(row_values),
      images_(batch * row_values),
      labels_(batch) {
  PSBENCH_CHECK(row_values_ >= values_) << "rows of " << row_values_ << " values for samples of " << values_;
}

void BatchAssembler::fill(std::span<const std::uint32_t> indices) {
  PSBENCH_CHECK(indices.size() <= labels_.size()) << "batch of " << indices.size() << " exceeds the buffers";
  const std::span<float> rows(images_);
  for (std::size_t row = 0; row < indices.size(); ++row) {
    const std::size_t sample = indices[row];
    PSBENCH_CHECK(sample < samples_.count()) << "sample " << sample << " is outside the partition";
    samples_.images.normalise(sample, 1, rows.subspan(row * row_values_, values_));
    labels_[row] = samples_.labels[sample];
  }
}

}  // namespace psbench::train
