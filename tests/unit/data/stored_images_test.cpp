#include "data/stored_images.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/bulk_memory.hpp"

namespace psbench::data {
namespace {

TEST(StoredImages, Uint8SamplesNormaliseThroughTheFileStatisticsAtAQuarterOfTheMemory) {
  const SampleShape shape{2, 1, 3};  // two channels of three pixels
  const std::vector<double> mean{0.5, 0.1};
  const std::vector<double> stddev{0.25, 0.2};
  BulkVector<std::uint8_t> pixels(4 * 6);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 11);
  std::vector<float> expected(pixels.size());
  Normalizer(shape, mean, stddev).apply(pixels, expected);

  const StoredImages images = StoredImages::from_pixels(shape, pixels, mean, stddev);
  EXPECT_EQ(images.type(), PixelType::kUint8);
  EXPECT_EQ(images.count(), 4U);
  EXPECT_EQ(images.stored_bytes(), pixels.size());
  std::vector<float> all(expected.size());
  images.normalise(0, 4, all);
  EXPECT_EQ(all, expected);
  std::vector<float> two(2 * 6);  // samples 1 and 2 alone
  images.normalise(1, 2, two);
  EXPECT_EQ(two, std::vector<float>(expected.begin() + 6, expected.begin() + 18));
  EXPECT_FLOAT_EQ(two[6 + 3], static_cast<float>((static_cast<double>(2 * 6 + 3) * 11 / 255.0 - 0.1) / 0.2));
}

TEST(StoredImages, Float32SamplesAreCopiedAsStored) {
  const SampleShape shape{1, 2, 1};
  const BulkVector<float> values{0.5F, -1.0F, 2.25F, 3.0F, -0.125F, 7.0F};
  const StoredImages images = StoredImages::from_values(shape, values);
  EXPECT_EQ(images.type(), PixelType::kFloat32);
  EXPECT_EQ(images.count(), 3U);
  EXPECT_EQ(images.stored_bytes(), values.size() * sizeof(float));
  std::vector<float> last(2);
  images.normalise(2, 1, last);
  EXPECT_EQ(last, (std::vector<float>{-0.125F, 7.0F}));
  EXPECT_EQ(StoredImages().count(), 0U);
}

}  // namespace
}  // namespace psbench::data
