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
  EXPECT_EQ(cut.column_at(25), 3U);
  EXPECT_EQ(cut.column_at(30), 4U);
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
  std::vector<std::size_t> sizes(512, 784);  // mlp:512,256's first layer, one column per output neuron
  sizes.push_back(512);
  const ColumnLayout layout(sizes);
  const std::vector<std::size_t> bounds = stripe_bounds(layout, 2);
  EXPECT_EQ(bounds[1], 257U);  // 401,920 / 2 = 200,960 = 256.33 columns of 784
}

}  // namespace
}  // namespace psbench::compress
