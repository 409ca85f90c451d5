#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "compress/onebit.hpp"
#include "compress/onebit_kernel_set.hpp"

namespace psbench::compress {
namespace {

// Column sizes around the kernels' rounds of 16 and words of 32, a model's 784, and a column with a long tail.
const std::vector<std::size_t> kSizes{1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 784, 1000};

std::vector<float> random_values(std::size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0F, 1.0F);
  std::vector<float> values(count);
  for (float& value : values) value = normal(random);
  return values;
}

// A column's means as the kernels sum: lane l = i % 16 over whole rounds of 16, the values past the last round one by
// one into the totals, then lanes 0..15 into the totals.
Reconstruction reference_means(const float* x, std::size_t size) {
  float negative[16] = {};
  float positive[16] = {};
  std::size_t negatives = 0;
  const std::size_t rounds = size / 16 * 16;
  // if/else, not a conditional lvalue: GCC 12 with -fsanitize=undefined at -O1 sums `(c ? a : b)[l] += x` one ulp
  // away from the source's order.
  for (std::size_t i = 0; i < rounds; ++i) {
    if (x[i] < 0.0F) {
      negative[i % 16] += x[i];
    } else {
      positive[i % 16] += x[i];
    }
  }
  float total_negative = 0.0F;
  float total_positive = 0.0F;
  for (std::size_t i = rounds; i < size; ++i) {
    if (x[i] < 0.0F) {
      total_negative += x[i];
    } else {
      total_positive += x[i];
    }
  }
  for (std::size_t l = 0; l < 16; ++l) {
    total_negative += negative[l];
    total_positive += positive[l];
  }
  for (std::size_t i = 0; i < size; ++i) negatives += x[i] < 0.0F ? 1 : 0;
  Reconstruction r;
  if (negatives > 0) r.lower = total_negative / static_cast<float>(negatives);
  if (negatives < size) r.upper = total_positive / static_cast<float>(size - negatives);
  return r;
}

TEST(OneBitKernels, MeansFollowTheLaneOrderBitForBit) {
  const ColumnLayout layout(kSizes);
  const std::vector<float> values = random_values(layout.values(), 3);
  std::vector<std::uint32_t> packed(layout.words());
  quantize_onebit(layout, values, {}, packed);
  for (std::size_t c = 0; c < layout.columns(); ++c) {
    const Reconstruction expected = reference_means(values.data() + layout.column(c).begin, layout.column(c).size);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(reconstruction_of(layout, packed, c).lower),
              std::bit_cast<std::uint32_t>(expected.lower))
        << "column of " << layout.column(c).size;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(reconstruction_of(layout, packed, c).upper),
              std::bit_cast<std::uint32_t>(expected.upper))
        << "column of " << layout.column(c).size;
  }
}

TEST(OneBitKernels, EveryBitIsTheSignOfItsValue) {
  const ColumnLayout layout(kSizes);
  const std::vector<float> values = random_values(layout.values(), 5);
  std::vector<std::uint32_t> packed(layout.words());
  quantize_onebit(layout, values, {}, packed);
  for (std::size_t c = 0; c < layout.columns(); ++c) {
    const Column& column = layout.column(c);
    for (std::size_t i = 0; i < column.size; ++i) {
      const bool bit = (packed[column.word + 2 + i / 32] >> (i % 32) & 1U) != 0;
      ASSERT_EQ(bit, !(values[column.begin + i] < 0.0F)) << "value " << i << " of a column of " << column.size;
    }
    const std::size_t padding = (column.size + 31) / 32 * 32 - column.size;
    if (padding > 0) {
      EXPECT_EQ(packed[column.word + 2 + column.size / 32] >> (32 - padding), 0U);
    }
  }
}

// A matrix of 37 x 45 (two tiles of 16 columns at the widest vectors, then 13 columns alone), a vector, and a second
// matrix cut inside a row, so that its columns have 3 and 2 values on either side of the cut.
ColumnLayout strided_layout() {
  const std::array<Matrix, 3> matrices{Matrix{37, 45}, Matrix{20, 1}, Matrix{5, 33}};
  const std::size_t cut = 37 * 45 + 20 + 2 * 33 + 10;
  return ColumnLayout(matrices).cut_at(std::array<std::size_t, 1>{cut});
}

// A strided column's means sum its values in order, one by one.
TEST(OneBitKernels, StridedMeansSumTheValuesInOrderBitForBit) {
  const ColumnLayout layout = strided_layout();
  const std::vector<float> values = random_values(layout.values(), 4);
  std::vector<std::uint32_t> packed(layout.words());
  quantize_onebit(layout, values, {}, packed);
  std::size_t strided = 0;
  for (std::size_t c = 0; c < layout.columns(); ++c) {
    const Column& column = layout.column(c);
    if (column.stride == 1) continue;
    ++strided;
    float negative = 0.0F;
    float positive = 0.0F;
    std::size_t negatives = 0;
    for (std::size_t i = 0; i < column.size; ++i) {
      const float x = values[column.begin + i * column.stride];
      if (x < 0.0F) {
        negative += x;
        ++negatives;
      } else {
        positive += x;
      }
      ASSERT_EQ((packed[column.word + 2 + i / 32] >> (i % 32) & 1U) != 0, !(x < 0.0F)) << c << " " << i;
    }
    const Reconstruction r = reconstruction_of(layout, packed, c);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(r.lower),
              std::bit_cast<std::uint32_t>(negatives > 0 ? negative / static_cast<float>(negatives) : 0.0F));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(r.upper),
              std::bit_cast<std::uint32_t>(negatives < column.size
                                               ? positive / static_cast<float>(column.size - negatives)
                                               : 0.0F));
  }
  EXPECT_EQ(strided, 45U + 2U * 33U);
}

// Every instruction set's kernels give the baseline's packed form, residual and reconstructions bit for bit, a NaN
// and signed zeros included.
void expect_every_set_gives_the_baselines_bits(const ColumnLayout& layout) {
  std::vector<float> values = random_values(layout.values(), 9);
  values[3] = -0.0F;
  values[40] = std::numeric_limits<float>::quiet_NaN();
  values[41] = 0.0F;
  const std::vector<float> start = random_values(layout.values(), 10);
  std::vector<float> base_residual = start;
  std::vector<std::uint32_t> base_packed(layout.words());
  kBaselineKernels.quantize(&layout.column(0), layout.columns(), values.data(), base_residual.data(),
                            base_packed.data());
  std::vector<float> base_out = start;
  kBaselineKernels.unpack_add(&layout.column(0), layout.columns(), base_packed.data(), base_out.data());
  const std::span<const KernelSet* const> sets = runnable_onebit_kernels();
  EXPECT_EQ(sets.front(), &kBaselineKernels);
  EXPECT_EQ(sets.back(), &onebit_kernels());
  for (const KernelSet* set : sets) {
    std::vector<float> residual = start;
    std::vector<std::uint32_t> packed(layout.words());
    set->quantize(&layout.column(0), layout.columns(), values.data(), residual.data(), packed.data());
    EXPECT_EQ(packed, base_packed) << set->name;
    EXPECT_EQ(std::memcmp(residual.data(), base_residual.data(), residual.size() * sizeof(float)), 0) << set->name;
    std::vector<float> out = start;
    set->unpack_add(&layout.column(0), layout.columns(), packed.data(), out.data());
    EXPECT_EQ(std::memcmp(out.data(), base_out.data(), out.size() * sizeof(float)), 0) << set->name;
    std::vector<float> plain(layout.values());
    std::vector<float> base_plain(layout.values());
    set->unpack(&layout.column(0), layout.columns(), packed.data(), plain.data());
    kBaselineKernels.unpack(&layout.column(0), layout.columns(), base_packed.data(), base_plain.data());
    EXPECT_EQ(std::memcmp(plain.data(), base_plain.data(), plain.size() * sizeof(float)), 0) << set->name;
  }
}

TEST(OneBitKernels, EveryInstructionSetGivesTheBaselinesBits) { expect_every_set_gives_the_baselines_bits(ColumnLayout(kSizes)); }

TEST(OneBitKernels, EveryInstructionSetGivesTheBaselinesBitsOnMatrices) {
  expect_every_set_gives_the_baselines_bits(strided_layout());
}

}  // namespace
}  // namespace psbench::compress
