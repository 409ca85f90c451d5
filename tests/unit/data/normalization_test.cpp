#include "data/normalization.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace psbench::data {
namespace {

TEST(PixelStatistics, PerChannelMeanAndStdOnTheUnitScale) {
  const SampleShape shape{2, 1, 2};  // two channels of two pixels
  PixelStatistics statistics(shape);
  // Two samples: channel 0 sees 0, 255, 0, 255; channel 1 sees 51 four times.
  const std::vector<std::uint8_t> samples{0, 255, 51, 51, 0, 255, 51, 51};
  statistics.add(samples);
  EXPECT_DOUBLE_EQ(statistics.mean()[0], 0.5);
  EXPECT_DOUBLE_EQ(statistics.stddev()[0], 0.5);
  EXPECT_DOUBLE_EQ(statistics.mean()[1], 0.2);
  EXPECT_DOUBLE_EQ(statistics.stddev()[1], 0.0);
}

TEST(Normalizer, MapsEachChannelWithItsOwnStatistics) {
  const SampleShape shape{2, 1, 1};
  const std::vector<double> mean{0.5, 0.0};
  const std::vector<double> stddev{0.25, 0.0};  // a zero std is treated as one
  const Normalizer normalizer(shape, mean, stddev);
  const std::vector<std::uint8_t> pixels{255, 255, 0, 51};
  std::vector<float> out(pixels.size());
  normalizer.apply(pixels, out);
  EXPECT_FLOAT_EQ(out[0], 2.0F);
  EXPECT_FLOAT_EQ(out[1], 1.0F);
  EXPECT_FLOAT_EQ(out[2], -2.0F);
  EXPECT_FLOAT_EQ(out[3], 0.2F);
}

}  // namespace
}  // namespace psbench::data
