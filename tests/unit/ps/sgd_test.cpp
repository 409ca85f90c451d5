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

// DC-ASGD (apply_compensated_slice): g' = g + lambda*g*g*(w - sent), then the step with g'. Values chosen so that
// every intermediate is exact in float: the expectations are hand computations, compared bit for bit.
TEST(Sgd, CompensatedStepMatchesAHandComputation) {
  SgdOptimizer sgd(2, SgdConfig{0.5F, 0.0F});
  std::vector<float> w{1.0F, 2.0F};
  std::vector<float> sent{0.5F, 2.5F};
  const std::vector<float> g{2.0F, -1.0F};
  // g'0 = 2 + 0.25*4*(1 - 0.5) = 2.5, w0 = 1 - 0.5*2.5 = -0.25;
  // g'1 = -1 + 0.25*1*(2 - 2.5) = -1.125, w1 = 2 + 0.5*1.125 = 2.5625.
  sgd.apply_compensated_slice(w, g, 0, sent, 0.25F, false);
  EXPECT_EQ(w, (std::vector<float>{-0.25F, 2.5625F}));
  EXPECT_EQ(sent, (std::vector<float>{0.5F, 2.5F})) << "a held reply leaves the worker's copy as it was";
  // Refreshed: the copy becomes the fresh weights, and so does the reply's copy.
  std::vector<float> reply(2, 0.0F);
  // g'0 = 2 + 0.25*4*(-0.25 - 0.5) = 1.25, w0 = -0.25 - 0.625 = -0.875;
  // g'1 = -1 + 0.25*1*(2.5625 - 2.5) = -0.984375, w1 = 2.5625 + 0.4921875 = 3.0546875.
  sgd.apply_compensated_slice(w, g, 0, sent, 0.25F, true, reply);
  EXPECT_EQ(w, (std::vector<float>{-0.875F, 3.0546875F}));
  EXPECT_EQ(sent, w);
  EXPECT_EQ(reply, w);
}

TEST(Sgd, CompensatedStepWithMomentumMatchesAHandComputation) {
  SgdOptimizer sgd(1, SgdConfig{0.5F, 0.5F});
  std::vector<float> w{1.0F};
  std::vector<float> sent{0.0F};
  const std::vector<float> g{2.0F};
  // g' = 2 + 0.125*4*(1 - 0) = 2.5, v = 2.5, w = 1 - 1.25 = -0.25; sent = -0.25.
  sgd.apply_compensated_slice(w, g, 0, sent, 0.125F, true);
  EXPECT_EQ(w[0], -0.25F);
  EXPECT_EQ(sent[0], -0.25F);
  EXPECT_EQ(sgd.velocity()[0], 2.5F);
  // w = sent: no compensation. g' = 2, v = 0.5*2.5 + 2 = 3.25, w = -0.25 - 1.625 = -1.875.
  sgd.apply_compensated_slice(w, g, 0, sent, 0.125F, false);
  EXPECT_EQ(w[0], -1.875F);
  EXPECT_EQ(sgd.velocity()[0], 3.25F);
  // sent stayed -0.25: g' = 2 + 0.125*4*(-1.875 + 0.25) = 1.1875, v = 1.625 + 1.1875 = 2.8125,
  // w = -1.875 - 1.40625 = -3.28125.
  sgd.apply_compensated_slice(w, g, 0, sent, 0.125F, false);
  EXPECT_EQ(w[0], -3.28125F);
  EXPECT_EQ(sgd.velocity()[0], 2.8125F);
}

// lambda = 0 is plain SGD bit for bit, slice by slice across the block size, with momentum and without, and the
// refreshed copy is the fresh weights.
TEST(Sgd, CompensatedStepAtLambdaZeroIsApplySliceBitForBit) {
  for (const float momentum : {0.0F, 0.9F}) {
    const std::size_t size = 2500;
    SgdOptimizer plain(size, SgdConfig{0.05F, momentum});
    SgdOptimizer compensated(size, SgdConfig{0.05F, momentum});
    std::vector<float> a = ramp_weights(size);
    const std::vector<float> g = ramp_gradient(size);
    std::vector<float> b = a;
    std::vector<float> sent(size, 3.0F);
    for (int step = 0; step < 4; ++step) {
      for (std::size_t offset = 0; offset < size; offset += 1100) {
        const std::size_t length = std::min<std::size_t>(1100, size - offset);
        plain.apply_slice(std::span<float>(a).subspan(offset, length),
                          std::span<const float>(g).subspan(offset, length), offset);
        compensated.apply_compensated_slice(std::span<float>(b).subspan(offset, length),
                                            std::span<const float>(g).subspan(offset, length), offset,
                                            std::span<float>(sent).subspan(offset, length), 0.0F, step % 2 == 1);
      }
      ASSERT_EQ(a, b) << "momentum " << momentum << ", step " << step;
      if (step % 2 == 1) {
        ASSERT_EQ(sent, b);
      }
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
