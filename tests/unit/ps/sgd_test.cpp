#include "ps/sgd.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/aligned_buffer.hpp"

namespace psbench::ps {
namespace {

TEST(Sgd, PlainStepSubtractsRateTimesGradient) {
  SgdOptimizer sgd(3, SgdConfig{0.5F, 0.0F});
  std::vector<float> w{1.0F, 2.0F, 3.0F};
  const std::vector<float> g{2.0F, -4.0F, 0.0F};
  sgd.apply(w, g);
  EXPECT_FLOAT_EQ(w[0], 0.0F);
  EXPECT_FLOAT_EQ(w[1], 4.0F);
  EXPECT_FLOAT_EQ(w[2], 3.0F);
}

TEST(Sgd, MomentumAccumulatesVelocity) {
  SgdOptimizer sgd(1, SgdConfig{0.1F, 0.9F});
  std::vector<float> w{1.0F};
  const std::vector<float> g{1.0F};
  sgd.apply(w, g);  // v = 1, w = 0.9
  EXPECT_FLOAT_EQ(w[0], 0.9F);
  sgd.apply(w, g);  // v = 1.9, w = 0.71
  EXPECT_NEAR(w[0], 0.71F, 1e-6F);
  sgd.apply(w, g);  // v = 2.71, w = 0.439
  EXPECT_NEAR(w[0], 0.439F, 1e-6F);
}

TEST(Sgd, SameInputsGiveBitIdenticalResults) {
  SgdOptimizer first(4, SgdConfig{0.01F, 0.9F});
  SgdOptimizer second(4, SgdConfig{0.01F, 0.9F});
  std::vector<float> a{0.1F, 0.2F, 0.3F, 0.4F};
  std::vector<float> b = a;
  const std::vector<float> g{0.7F, -0.3F, 1e-3F, 5.0F};
  for (int i = 0; i < 10; ++i) {
    first.apply(a, g);
    second.apply(b, g);
  }
  EXPECT_EQ(a, b);
}

// Weights 0.001 i and a gradient that repeats every 7 values: what the slice tests update.
std::vector<float> ramp_weights(std::size_t size) {
  std::vector<float> weights(size);
  for (std::size_t i = 0; i < size; ++i) weights[i] = 0.001F * static_cast<float>(i);
  return weights;
}

std::vector<float> ramp_gradient(std::size_t size) {
  std::vector<float> gradient(size);
  for (std::size_t i = 0; i < size; ++i) gradient[i] = 0.5F - 0.003F * static_cast<float>(i % 7);
  return gradient;
}

TEST(Sgd, SliceBySliceEqualsWholeWithMomentum) {
  const std::size_t size = 1000;
  SgdOptimizer whole(size, SgdConfig{0.05F, 0.9F});
  SgdOptimizer sliced(size, SgdConfig{0.05F, 0.9F});
  std::vector<float> a = ramp_weights(size);
  const std::vector<float> g = ramp_gradient(size);
  std::vector<float> b = a;
  for (int step = 0; step < 5; ++step) {
    whole.apply(a, g);
    for (std::size_t offset = 0; offset < size; offset += 300) {
      const std::size_t length = std::min<std::size_t>(300, size - offset);
      sliced.apply_slice(std::span<float>(b).subspan(offset, length), std::span<const float>(g).subspan(offset, length),
                         offset);
    }
  }
  EXPECT_EQ(a, b);
}

// The fused update of the shared-window reply: the weights end as apply_slice leaves them, bit for bit,
// and the copy equals them after every step, with momentum and without.
TEST(Sgd, ApplySliceIntoMatchesApplySliceAndCopiesTheFreshWeights) {
  for (const float momentum : {0.0F, 0.9F}) {
    const std::size_t size = 777;
    SgdOptimizer plain(size, SgdConfig{0.05F, momentum});
    SgdOptimizer fused(size, SgdConfig{0.05F, momentum});
    std::vector<float> a = ramp_weights(size);
    const std::vector<float> g = ramp_gradient(size);
    std::vector<float> b = a;
    std::vector<float> copy(size, -1.0F);
    for (int step = 0; step < 4; ++step) {
      for (std::size_t offset = 0; offset < size; offset += 250) {
        const std::size_t length = std::min<std::size_t>(250, size - offset);
        plain.apply_slice(std::span<float>(a).subspan(offset, length),
                          std::span<const float>(g).subspan(offset, length), offset);
        fused.apply_slice_into(std::span<float>(b).subspan(offset, length),
                               std::span<const float>(g).subspan(offset, length), offset,
                               std::span<float>(copy).subspan(offset, length));
      }
      ASSERT_EQ(a, b) << "momentum " << momentum << ", step " << step;
      ASSERT_EQ(copy, b) << "momentum " << momentum << ", step " << step;
    }
  }
}

// The velocity is read and written beside the weights in every update: from 2 MiB on it is a bulk buffer in huge
// pages (AlignedBuffer), as they are, and starts at another offset of its huge page than the weights allocated
// before it: at one offset their streams made the update 2-3x slower (docs/architecture.md, "Buffer alignment").
TEST(Sgd, LargeVelocityStartsStaggeredFromTheWeightsAndAtZero) {
  constexpr std::size_t kValues = std::size_t{1} << 20;  // 4 MiB
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const AlignedBuffer weights(kValues);
  const SgdOptimizer optimizer(kValues, SgdConfig{0.1F, 0.9F});
  ASSERT_EQ(optimizer.velocity().size(), kValues);
  const auto velocity_at = reinterpret_cast<std::uintptr_t>(optimizer.velocity().data());
  EXPECT_EQ(velocity_at % 64, 0U);
  EXPECT_NE(velocity_at % kHugePage, reinterpret_cast<std::uintptr_t>(weights.span().data()) % kHugePage);
  EXPECT_TRUE(std::all_of(optimizer.velocity().begin(), optimizer.velocity().end(), [](float v) { return v == 0.0F; }));
  EXPECT_TRUE(SgdOptimizer(kValues, SgdConfig{0.1F, 0.0F}).velocity().empty()) << "plain SGD keeps no velocity";
}

}  // namespace
}  // namespace psbench::ps
