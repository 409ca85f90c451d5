#include "compress/column_layout.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace psbench::compress {
namespace {

TEST(ColumnLayout, PacksTwoFloatsAndOneBitPerValuePaddedToWords) {
  EXPECT_EQ(packed_words(1), 3U);
  EXPECT_EQ(packed_words(32), 3U);
  EXPECT_EQ(packed_words(33), 4U);
  EXPECT_EQ(packed_words(784), 2U + 25U);
  const std::array<std::size_t, 3> sizes{784, 40, 1};
  const ColumnLayout layout(sizes);
  EXPECT_EQ(layout.values(), 825U);
  EXPECT_EQ(layout.words(), 27U + 4U + 3U);
  EXPECT_EQ(layout.column(1).begin, 784U);
  EXPECT_EQ(layout.column(1).word, 27U);
  EXPECT_EQ(layout.column(2).word, 31U);
  EXPECT_EQ(layout.word_begin(3), 34U);
}

TEST(ColumnLayout, CutSplitsOnlyTheStraddlingColumns) {
  const std::array<std::size_t, 3> sizes{10, 10, 10};
  const ColumnLayout cut = ColumnLayout(sizes).cut_at(std::array<std::size_t, 3>{25, 10, 0});
  ASSERT_EQ(cut.columns(), 4U);
  EXPECT_EQ(cut.column(2).begin, 20U);
  EXPECT_EQ(cut.column(2).size, 5U);
  EXPECT_EQ(cut.column(3).begin, 25U);
  EXPECT_EQ(cut.column(3).size, 5U);
  EXPECT_EQ(cut.words_before(25), 3U + 3U + 3U);
  EXPECT_EQ(cut.words_before(30), cut.words());
}

// A 3 x 4 matrix (values 0-11, a row per output unit) and a vector of 2: a column per matrix column, its values 4
// apart, then the vector.
const std::array<Matrix, 2> kMatrixAndVector{Matrix{3, 4}, Matrix{2, 1}};

TEST(ColumnLayout, MatrixColumnsRunAcrossTheRows) {
  const ColumnLayout layout(kMatrixAndVector);
  ASSERT_EQ(layout.columns(), 5U);
  for (std::size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(layout.column(c).begin, c);
    EXPECT_EQ(layout.column(c).size, 3U);
    EXPECT_EQ(layout.column(c).stride, 4U);
    EXPECT_EQ(layout.column(c).word, 3 * c);
    EXPECT_EQ(layout.values_before(c), 3 * c);
  }
  EXPECT_EQ(layout.column(4).begin, 12U);
  EXPECT_EQ(layout.column(4).stride, 1U);
  EXPECT_EQ(layout.values(), 14U);
  EXPECT_EQ(layout.words(), 4U * 3U + 3U);
}

TEST(ColumnLayout, CutInsideAMatrixSplitsEveryColumnAtTheCut) {
  // Value 6 is row 1, column 2: columns 0 and 1 keep rows 0-1 before it, columns 2 and 3 row 0 only.
  const ColumnLayout cut = ColumnLayout(kMatrixAndVector).cut_at(std::array<std::size_t, 1>{6});
  ASSERT_EQ(cut.columns(), 9U);
  const std::size_t begins[] = {0, 1, 2, 3, 8, 9, 6, 7, 12};
  const std::size_t sizes[] = {2, 2, 1, 1, 1, 1, 2, 2, 2};
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(cut.column(i).begin, begins[i]) << i;
    EXPECT_EQ(cut.column(i).size, sizes[i]) << i;
  }
  EXPECT_EQ(cut.values(), 14U);
  EXPECT_EQ(cut.words_before(6), 4U * 3U);
  const ColumnLayout after = cut.within(6, 14);
  ASSERT_EQ(after.columns(), 5U);
  EXPECT_EQ(after.column(0).begin, 2U);  // value 8, column 0's row 2
  EXPECT_EQ(after.column(2).begin, 0U);  // value 6, column 2's row 1
  EXPECT_EQ(after.column(2).stride, 4U);
  EXPECT_EQ(after.column(4).begin, 6U);
  EXPECT_EQ(after.words(), 4U * 3U + 3U);
}

TEST(ColumnLayout, SliceGathersStridedColumnsEndToEnd) {
  const ColumnLayout slice = ColumnLayout(kMatrixAndVector).slice(2, 5);
  ASSERT_EQ(slice.columns(), 3U);
  EXPECT_EQ(slice.column(1).begin, 3U);
  EXPECT_EQ(slice.column(1).stride, 1U);
  EXPECT_EQ(slice.column(2).begin, 6U);
  EXPECT_EQ(slice.words(), 3U * 3U);
}

TEST(ColumnLayout, SliceIsRebasedToValueAndWordZero) {
  const std::array<std::size_t, 3> sizes{40, 7, 33};
  const ColumnLayout slice = ColumnLayout(sizes).slice(1, 3);
  ASSERT_EQ(slice.columns(), 2U);
  EXPECT_EQ(slice.column(0).begin, 0U);
  EXPECT_EQ(slice.column(0).word, 0U);
  EXPECT_EQ(slice.column(1).begin, 7U);
  EXPECT_EQ(slice.column(1).word, 3U);
  EXPECT_EQ(slice.words(), 3U + 4U);
}

TEST(StripeBounds, BalancesWholeColumnsByValues) {
  const std::vector<std::size_t> sizes(10, 100);  // 1000 values
  const ColumnLayout layout(sizes);
  EXPECT_EQ(stripe_bounds(layout, 1), (std::vector<std::size_t>{0, 10}));
  EXPECT_EQ(stripe_bounds(layout, 2), (std::vector<std::size_t>{0, 5, 10}));
  // 333 and 666 fall inside columns 3 and 6: each stripe takes the column it ends in.
  EXPECT_EQ(stripe_bounds(layout, 3), (std::vector<std::size_t>{0, 4, 7, 10}));
}

TEST(StripeBounds, FewerColumnsThanStripesLeavesEmptyStripes) {
  const std::array<std::size_t, 2> sizes{300, 10};
  EXPECT_EQ(stripe_bounds(ColumnLayout(sizes), 3), (std::vector<std::size_t>{0, 1, 1, 2}));
}

TEST(StripeBounds, MlpLayerColumnsSplitNearHalf) {
  // mlp:512,256's first layer as CNTK quantizes it, a column of 512 per input, then its bias.
  const std::array<Matrix, 2> layer{Matrix{512, 784}, Matrix{512, 1}};
  const std::vector<std::size_t> bounds = stripe_bounds(ColumnLayout(layer), 2);
  EXPECT_EQ(bounds[1], 393U);  // 401,920 / 2 = 200,960 = 392.5 columns of 512
}

}  // namespace
}  // namespace psbench::compress
