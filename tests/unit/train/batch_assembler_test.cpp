#include "train/batch_assembler.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace psbench::train {
namespace {

data::Samples numbered_samples(std::size_t count) {
  data::Samples samples;
  samples.shape = {1, 2, 2};
  samples.num_classes = 10;
  samples.total_samples = count;
  for (std::size_t i = 0; i < count; ++i) {
    for (int v = 0; v < 4; ++v) samples.images.push_back(static_cast<float>(i * 10 + static_cast<std::size_t>(v)));
    samples.labels.push_back(static_cast<std::int32_t>(i % 10));
  }
  return samples;
}

TEST(BatchAssembler, CopiesTheChosenSamplesContiguouslyInOrder) {
  const auto samples = numbered_samples(8);
  BatchAssembler assembler(samples, 3);
  const std::vector<std::uint32_t> indices{5, 0, 7};
  assembler.fill(indices);
  for (std::size_t row = 0; row < indices.size(); ++row) {
    EXPECT_EQ(assembler.labels()[row], static_cast<std::int32_t>(indices[row] % 10));
    for (std::size_t v = 0; v < 4; ++v) {
      EXPECT_EQ(assembler.images()[row * 4 + v], static_cast<float>(indices[row] * 10 + v));
    }
  }
}

TEST(BatchAssembler, ASmallerBatchFillsTheFront) {
  const auto samples = numbered_samples(8);
  BatchAssembler assembler(samples, 4);
  const std::vector<std::uint32_t> indices{6};
  assembler.fill(indices);
  EXPECT_EQ(assembler.labels()[0], 6);
  EXPECT_EQ(assembler.images()[3], 63.0F);
}

}  // namespace
}  // namespace psbench::train
