#include "common/aligned_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace psbench {
namespace {

TEST(AlignedBuffer, StartsOnACacheLineAndHoldsZeros) {
  // Sizes on both sides of glibc's mapping threshold: a mapped std::vector's data starts 16 bytes past a page.
  for (const std::size_t count : {1UL, 15UL, 17UL, 4096UL, 65536UL, 535818UL, 3274634UL}) {
    std::vector<AlignedBuffer> buffers;
    for (int i = 0; i < 4; ++i) buffers.emplace_back(count);
    for (const AlignedBuffer& buffer : buffers) {
      const std::span<float> values = buffer.span();
      ASSERT_EQ(values.size(), count);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % 64, 0U) << count << " values";
      EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0F; })) << count;
    }
  }
}

TEST(AlignedBuffer, FromTwoMebibytesPairsStartAtDistinctOffsetsOfTheirHugePages) {
  // A server's weights and velocity, allocated one after the other: at one offset of their huge pages their
  // streams slowed the SGD update 1.5-3x (docs/architecture.md, "Buffer alignment").
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  for (const std::size_t count : {kHugePage / 4, kHugePage / 4 + 1, 3274634UL}) {
    const AlignedBuffer weights(count);
    const AlignedBuffer velocity(count);
    for (const AlignedBuffer* buffer : {&weights, &velocity}) {
      const std::span<float> values = buffer->span();
      ASSERT_EQ(values.size(), count);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % 64, 0U) << count << " values";
      EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0F; })) << count;
      values.back() = 1.0F;  // the whole span is writable
    }
    EXPECT_NE(reinterpret_cast<std::uintptr_t>(weights.span().data()) % kHugePage,
              reinterpret_cast<std::uintptr_t>(velocity.span().data()) % kHugePage)
        << count << " values";
  }
}

TEST(AlignedBuffer, ZeroValuesGiveAnEmptySpan) { EXPECT_TRUE(AlignedBuffer(0).span().empty()); }

}  // namespace
}  // namespace psbench
