#include "train/batch_assembler.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/bulk_memory.hpp"
#include "data/normalization.hpp"

namespace psbench::train {
namespace {

// float32 samples whose value v of sample i is i * 10 + v.
data::Samples numbered_samples(std::size_t count) {
  data::Samples samples;
  samples.shape = {1, 2, 2};
  samples.num_classes = 10;
  samples.total_samples = count;
  BulkVector<float> values;
  for (std::size_t i = 0; i < count; ++i) {
    for (int v = 0; v < 4; ++v) values.push_back(static_cast<float>(i * 10 + static_cast<std::size_t>(v)));
    samples.labels.push_back(static_cast<std::int32_t>(i % 10));
  }
  samples.images = data::StoredImages::from_values(samples.shape, std::move(values));
  return samples;
}

TEST(BatchAssembler, CopiesTheChosenSamplesContiguouslyInOrder) {
  const auto samples = numbered_samples(8);
  BatchAssembler assembler(samples, 3, 4);
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
  BatchAssembler assembler(samples, 4, 4);
  const std::vector<std::uint32_t> indices{6};
  assembler.fill(indices);
  EXPECT_EQ(assembler.labels()[0], 6);
  EXPECT_EQ(assembler.images()[3], 63.0F);
}

TEST(BatchAssembler, RowsLongerThanASampleStartRowValuesApartAndKeepTheirGapsZero) {
  const auto samples = numbered_samples(8);
  BatchAssembler assembler(samples, 2, 6);
  const std::vector<std::uint32_t> indices{3, 7};
  assembler.fill(indices);
  const std::vector<float> expected{30, 31, 32, 33, 0, 0, 70, 71, 72, 73, 0, 0};
  EXPECT_EQ(std::vector<float>(assembler.images(), assembler.images() + expected.size()), expected);
}

TEST(BatchAssembler, NormalisesUint8SamplesAsTheFileStatisticsSay) {
  data::Samples samples;
  samples.shape = {2, 1, 2};  // two channels of two pixels
  samples.num_classes = 2;
  BulkVector<std::uint8_t> pixels(5 * 4);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 13);
  const std::vector<double> mean{0.25, 0.75};
  const std::vector<double> stddev{0.5, 0.125};
  std::vector<float> expected(pixels.size());
  data::Normalizer(samples.shape, mean, stddev).apply(pixels, expected);
  samples.images = data::StoredImages::from_pixels(samples.shape, std::move(pixels), mean, stddev);
  samples.labels = {0, 1, 0, 1, 0};
  BatchAssembler assembler(samples, 2, 4);
  const std::vector<std::uint32_t> indices{4, 1};
  assembler.fill(indices);
  for (std::size_t row = 0; row < indices.size(); ++row) {
    for (std::size_t v = 0; v < 4; ++v) {
      EXPECT_EQ(assembler.images()[row * 4 + v], expected[indices[row] * 4 + v]) << "row " << row << " value " << v;
    }
  }
  EXPECT_EQ(assembler.labels()[1], 1);
}

}  // namespace
}  // namespace psbench::train
