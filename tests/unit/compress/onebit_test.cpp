#include "compress/onebit.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace psbench::compress {
namespace {

// x = values + residual = {1, -1, 1.5, -2, 2}: lower = mean(-1, -2) = -1.5, upper = mean(1, 1.5, 2) = 1.5,
// bits 1 0 1 0 1 = 0b10101, reconstruction {1.5, -1.5, 1.5, -1.5, 1.5}, residual x - reconstruction.
TEST(OneBit, HandComputedColumn) {
  const std::array<std::size_t, 1> sizes{5};
  const ColumnLayout layout(sizes);
  const std::array<float, 5> values{0.5F, -1.0F, 2.0F, -3.0F, 2.0F};
  std::array<float, 5> residual{0.5F, 0.0F, -0.5F, 1.0F, 0.0F};
  std::array<std::uint32_t, 3> packed{};
  quantize_onebit(layout, values, residual, packed);
  EXPECT_EQ(std::bit_cast<float>(packed[0]), -1.5F);
  EXPECT_EQ(std::bit_cast<float>(packed[1]), 1.5F);
  EXPECT_EQ(packed[2], 0b10101U);
  EXPECT_EQ(residual, (std::array<float, 5>{-0.5F, 0.5F, 0.0F, -0.5F, 0.5F}));
  std::array<float, 5> out{};
  dequantize_onebit(layout, packed, out);
  EXPECT_EQ(out, (std::array<float, 5>{1.5F, -1.5F, 1.5F, -1.5F, 1.5F}));
  dequantize_add_onebit(layout, packed, out);
  EXPECT_EQ(out, (std::array<float, 5>{3.0F, -3.0F, 3.0F, -3.0F, 3.0F}));
}

// CNTK's columns of a weight matrix run across its rows (one per input): the 2 x 3 matrix {{1, -2, 3}, {-4, 5, 6}}
// (a row per output unit, as oi lays it out) has columns {1, -4}, {-2, 5} and {3, 6}: reconstructions (-4, 1),
// (-2, 5) and (0, 4.5), bits 0b01, 0b10, 0b11. Per row, the first row alone would give (-2, 2).
TEST(OneBit, HandComputedMatrixColumns) {
  const std::array<Matrix, 1> matrix{Matrix{2, 3}};
  const ColumnLayout layout(matrix);
  const std::array<float, 6> values{1.0F, -2.0F, 3.0F, -4.0F, 5.0F, 6.0F};
  std::array<float, 6> residual{};
  std::array<std::uint32_t, 9> packed{};
  quantize_onebit(layout, values, residual, packed);
  const std::array<float, 6> floats{-4.0F, 1.0F, -2.0F, 5.0F, 0.0F, 4.5F};
  const std::array<std::uint32_t, 3> bits{0b01U, 0b10U, 0b11U};
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(std::bit_cast<float>(packed[3 * c]), floats[2 * c]) << c;
    EXPECT_EQ(std::bit_cast<float>(packed[3 * c + 1]), floats[2 * c + 1]) << c;
    EXPECT_EQ(packed[3 * c + 2], bits[c]) << c;
  }
  EXPECT_EQ(residual, (std::array<float, 6>{0.0F, 0.0F, -1.5F, 0.0F, 0.0F, 1.5F}));
  std::array<float, 6> out{};
  dequantize_onebit(layout, packed, out);
  EXPECT_EQ(out, (std::array<float, 6>{1.0F, -2.0F, 4.5F, -4.0F, 5.0F, 4.5F}));
}

TEST(OneBit, WithoutResidualQuantizesTheValuesAlone) {
  const std::array<std::size_t, 2> sizes{3, 2};
  const ColumnLayout layout(sizes);
  const std::array<float, 5> values{-2.0F, 4.0F, 0.0F, 3.0F, 5.0F};
  std::array<std::uint32_t, 6> packed{};
  quantize_onebit(layout, values, {}, packed);
  EXPECT_EQ(reconstruction_of(layout, packed, 0).lower, -2.0F);
  EXPECT_EQ(reconstruction_of(layout, packed, 0).upper, 2.0F);  // 0 counts as non-negative
  EXPECT_EQ(packed[2], 0b110U);
  EXPECT_EQ(reconstruction_of(layout, packed, 1).lower, 0.0F);  // no negative entry
  EXPECT_EQ(reconstruction_of(layout, packed, 1).upper, 4.0F);
  EXPECT_EQ(packed[5], 0b11U);
}

// Error feedback keeps all of the gradient: residual + reconstruction is the quantizer's input x. The residual is
// x - q computed in float, so the sum is x exactly wherever x - q is exact: by Sterbenz's lemma wherever
// q/2 <= x <= 2q (same side of 0, within a factor 2), and for every value on a grid fine enough to hold x - q.
// Here every value is a multiple of 2^-10 below 2^4 and every column has 2^k entries per side, so every mean,
// difference and sum is exact, whatever the signs and magnitudes: the check is bit for bit.
TEST(OneBit, ResidualPlusReconstructionIsTheInputBitForBit) {
  const std::vector<std::size_t> sizes{64, 256, 1024};
  const ColumnLayout layout(sizes);
  std::mt19937 random(7);
  std::uniform_int_distribution<int> steps(64, 1 << 14);  // |value| >= 2^-4 > |residual|: x keeps its sign
  std::vector<float> values(layout.values());
  std::vector<float> residual(layout.values());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float sign = i % 2 == 0 ? 1.0F : -1.0F;  // half of each column on each side: power-of-two counts
    values[i] = sign * static_cast<float>(steps(random)) / 1024.0F;
    residual[i] = (i % 3 == 0 ? -1.0F : 1.0F) * static_cast<float>(steps(random) % 64) / 1024.0F;
  }
  std::vector<float> input(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) input[i] = values[i] + residual[i];
  std::vector<std::uint32_t> packed(layout.words());
  quantize_onebit(layout, values, residual, packed);
  std::vector<float> reconstruction(values.size());
  dequantize_onebit(layout, packed, reconstruction);
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(residual[i] + reconstruction[i]), std::bit_cast<std::uint32_t>(input[i]))
        << "value " << i;
  }
}

// Gaussian columns: within Sterbenz's range the identity is bit for bit; everywhere the error is below half an ulp
// of the residual (one rounding of x - q).
TEST(OneBit, ResidualPlusReconstructionOnGaussianColumns) {
  const std::vector<std::size_t> sizes(16, 784);
  const ColumnLayout layout(sizes);
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0F, 0.01F);
  std::vector<float> values(layout.values());
  for (float& value : values) value = normal(random);
  std::vector<float> residual(values.size(), 0.0F);
  std::vector<std::uint32_t> packed(layout.words());
  std::vector<float> reconstruction(values.size());
  std::size_t sterbenz = 0;
  for (int step = 0; step < 3; ++step) {
    std::vector<float> input(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) input[i] = values[i] + residual[i];
    quantize_onebit(layout, values, residual, packed);
    dequantize_onebit(layout, packed, reconstruction);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float q = reconstruction[i];
      const float x = input[i];
      if (std::abs(q) / 2 <= std::abs(x) && std::abs(x) <= 2 * std::abs(q)) {
        ++sterbenz;
        ASSERT_EQ(residual[i] + q, x) << "value " << i << " at step " << step;
      }
      const float half_ulp = std::abs(residual[i]) * std::numeric_limits<float>::epsilon() / 2;
      ASSERT_LE(std::abs(static_cast<double>(residual[i]) + q - x), half_ulp) << "value " << i;
    }
  }
  EXPECT_GT(sterbenz, values.size());  // most values lie within a factor 2 of their column's side mean
}

TEST(OneBit, NanGoesToTheUpperSideSoTheSumShowsIt) {
  const std::array<std::size_t, 1> sizes{3};
  const ColumnLayout layout(sizes);
  const std::array<float, 3> values{std::numeric_limits<float>::quiet_NaN(), -1.0F, 1.0F};
  std::array<std::uint32_t, 3> packed{};
  quantize_onebit(layout, values, {}, packed);
  std::array<float, 3> out{};
  dequantize_onebit(layout, packed, out);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], -1.0F);
}

}  // namespace
}  // namespace psbench::compress
