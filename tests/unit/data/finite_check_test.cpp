#include "data/finite_check.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace psbench::data {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

TEST(FiniteCheck, FiniteExtremesPassAndEveryNonFiniteKindIsFound) {
  const std::vector<float> finite{0.0F,
                                  -0.0F,
                                  std::numeric_limits<float>::max(),
                                  -std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::min()};
  EXPECT_TRUE(all_finite(finite));
  EXPECT_TRUE(all_finite({}));
  for (const float bad : {kNaN, -kNaN, kInfinity, -kInfinity, std::numeric_limits<float>::signaling_NaN()}) {
    // At every position: in the two vectorised blocks of 64 values and in the scalar tail of 22.
    for (std::size_t at = 0; at < 150; ++at) {
      std::vector<float> values(150, 1.5F);
      values[at] = bad;
      EXPECT_FALSE(all_finite(values)) << bad << " at " << at;
    }
  }
}

TEST(FiniteCheck, FindsAndCountsTheSamplesHoldingNonFiniteValues) {
  constexpr std::size_t kValues = 70;  // per sample: one block of 64 values and a tail of 6
  std::vector<float> values(6 * kValues, 0.5F);
  EXPECT_EQ(first_non_finite_sample(values, kValues), std::nullopt);
  EXPECT_EQ(count_non_finite_samples(values, kValues), 0U);
  values[3 * kValues + 69] = kInfinity;  // last value of sample 3
  values[5 * kValues] = kNaN;            // first value of sample 5
  values[5 * kValues + 7] = kNaN;
  EXPECT_EQ(first_non_finite_sample(values, kValues), 3U);
  EXPECT_EQ(count_non_finite_samples(values, kValues), 2U);
}

TEST(FiniteCheck, TheLoaderCheckRemembersTheFirstBadSampleOfFloatImagesOnly) {
  SplitInfo info;
  info.path = "f.h5";
  info.split = "train";
  info.shape = {1, 2, 2};
  info.pixel_type = PixelType::kFloat32;
  std::vector<float> block(3 * 4, 1.0F);
  block[2 * 4 + 1] = kNaN;
  FiniteCheck check(info);
  check.check(block.data(), 3, 100);  // samples 100..103: 102 is bad
  block[1] = kNaN;
  check.check(block.data(), 3, 200);  // a later bad sample does not replace the first
  try {
    check.throw_if_bad();
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("'f.h5': /train/images[102] (sample 102) holds NaN or infinite values"),
              std::string::npos)
        << error.what();
  }
  info.pixel_type = PixelType::kUint8;  // the same bytes as pixels: no check
  FiniteCheck pixels(info);
  pixels.check(block.data(), 3, 0);
  EXPECT_NO_THROW(pixels.throw_if_bad());
}

}  // namespace
}  // namespace psbench::data
