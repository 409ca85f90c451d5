#include "data/synthetic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "common/error.hpp"
#include "data/loader.hpp"
#include "data/raw_partition.hpp"
#include "data_fixtures.hpp"

namespace psbench::data {
namespace {

using fixtures::TempDir;

TEST(SyntheticGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  const SampleShape shape{3, 8, 8};
  const SyntheticGenerator a(shape, 10, 42);
  const SyntheticGenerator b(shape, 10, 42);
  const SyntheticGenerator c(shape, 10, 43);
  std::vector<std::uint8_t> x(shape.values());
  std::vector<std::uint8_t> y(shape.values());
  std::vector<std::uint8_t> z(shape.values());
  int same_labels = 0;
  for (std::uint64_t i = 0; i < 50; ++i) {
    const auto la = a.generate(SynthSplit::kTrain, i, x);
    EXPECT_EQ(la, b.generate(SynthSplit::kTrain, i, y));
    EXPECT_EQ(x, y) << "sample " << i;
    same_labels += la == c.generate(SynthSplit::kTrain, i, z) ? 1 : 0;
    EXPECT_NE(x, z) << "sample " << i;
  }
  EXPECT_LT(same_labels, 20) << "labels barely depend on the seed";
  a.generate(SynthSplit::kTest, 0, y);
  a.generate(SynthSplit::kTrain, 0, x);
  EXPECT_NE(x, y) << "the test split reuses the training stream";
}

// Nearest class mean, fitted on one half and scored on the other: well above chance (learnable) yet below
// 100% (not trivial).
TEST(SyntheticGenerator, ClassesAreSeparableButNotTrivially) {
  const SampleShape shape{1, 28, 28};
  constexpr int kClasses = 10;
  const SyntheticGenerator generator(shape, kClasses, 1);
  constexpr std::uint64_t kSamples = 4000;
  std::vector<std::vector<double>> sums(kClasses, std::vector<double>(shape.values(), 0.0));
  std::vector<int> counts(kClasses, 0);
  std::vector<std::uint8_t> pixels(shape.values());
  for (std::uint64_t i = 0; i < kSamples / 2; ++i) {
    const int label = generator.generate(SynthSplit::kTrain, i, pixels);
    ++counts[label];
    for (std::size_t j = 0; j < pixels.size(); ++j) sums[label][j] += pixels[j];
  }
  for (int k = 0; k < kClasses; ++k) {
    EXPECT_GT(counts[k], 120) << "class " << k << " is rare";
    for (double& v : sums[k]) v /= counts[k];
  }
  int correct = 0;
  for (std::uint64_t i = kSamples / 2; i < kSamples; ++i) {
    const int label = generator.generate(SynthSplit::kTrain, i, pixels);
    int best = 0;
    double best_distance = std::numeric_limits<double>::max();
    for (int k = 0; k < kClasses; ++k) {
      double distance = 0.0;
      for (std::size_t j = 0; j < pixels.size(); ++j) distance += (pixels[j] - sums[k][j]) * (pixels[j] - sums[k][j]);
      if (distance < best_distance) {
        best_distance = distance;
        best = k;
      }
    }
    correct += best == label ? 1 : 0;
  }
  const double accuracy = static_cast<double>(correct) / (kSamples / 2);
  EXPECT_GT(accuracy, 0.6);
  EXPECT_LT(accuracy, 0.99);
}

TEST(WriteSynthetic, FileIsDeterministicForASeedAndDiffersAcrossSeeds) {
  const TempDir dir("synth");
  fixtures::write_small_synth(dir.file("a.h5"), 23, 5, PixelType::kUint8, 3);
  fixtures::write_small_synth(dir.file("b.h5"), 23, 5, PixelType::kUint8, 3);
  fixtures::write_small_synth(dir.file("c.h5"), 23, 5, PixelType::kUint8, 4);
  for (const char* split : {"train", "test"}) {
    const RawPartition a = read_whole_split(dir.file("a.h5"), split);
    const RawPartition b = read_whole_split(dir.file("b.h5"), split);
    const RawPartition c = read_whole_split(dir.file("c.h5"), split);
    EXPECT_EQ(a.pixels, b.pixels) << split;
    EXPECT_EQ(a.labels, b.labels) << split;
    EXPECT_EQ(a.info.mean, b.info.mean) << split;
    EXPECT_NE(a.pixels, c.pixels) << split;
  }
  EXPECT_EQ(read_split_info(dir.file("a.h5"), "train").samples, 23U);
  EXPECT_EQ(read_split_info(dir.file("a.h5"), "test").samples, 5U);
  EXPECT_EQ(read_split_info(dir.file("a.h5"), "train").chunk_samples, 5U);
}

TEST(WriteSynthetic, MatchesTheGeneratorSampleBySample) {
  const TempDir dir("synth");
  fixtures::write_small_synth(dir.file("a.h5"), 17, 3, PixelType::kUint8, 9);
  const RawPartition raw = read_whole_split(dir.file("a.h5"), "test");
  const SyntheticGenerator generator(raw.info.shape, raw.info.num_classes, 9);
  std::vector<std::uint8_t> pixels(raw.info.shape.values());
  for (std::uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(generator.generate(SynthSplit::kTest, i, pixels), raw.labels[i]);
    EXPECT_TRUE(
        std::equal(pixels.begin(), pixels.end(), raw.pixels.begin() + static_cast<std::ptrdiff_t>(i * pixels.size())));
  }
}

TEST(WriteSynthetic, Float32HoldsWhatTheLoaderMakesOfUint8) {
  const TempDir dir("synth");
  fixtures::write_small_synth(dir.file("u8.h5"), 31, 4, PixelType::kUint8, 5);
  fixtures::write_small_synth(dir.file("f32.h5"), 31, 4, PixelType::kFloat32, 5);
  for (const char* split : {"train", "test"}) {
    const Samples u8 = load_split(dir.file("u8.h5"), split);
    const Samples f32 = load_split(dir.file("f32.h5"), split);
    EXPECT_EQ(fixtures::normalised_images(u8), fixtures::normalised_images(f32)) << split;
    EXPECT_EQ(u8.labels, f32.labels) << split;
  }
}

TEST(WriteSynthetic, RejectsBadOptions) {
  const TempDir dir("synth");
  SynthOptions options;
  options.train_samples = 10;
  options.test_samples = 2;
  options.shape = {1, 2, 2};
  options.num_classes = 1;
  EXPECT_THROW(write_synthetic(dir.file("x.h5"), options), UserError);
  options.num_classes = 3;
  options.train_samples = 0;
  EXPECT_THROW(write_synthetic(dir.file("x.h5"), options), UserError);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ParseShape, AcceptsCHWAndRejectsTheRest) {
  const SampleShape shape = parse_shape("3,32,30", "--shape");
  EXPECT_EQ(shape.channels, 3);
  EXPECT_EQ(shape.height, 32);
  EXPECT_EQ(shape.width, 30);
  for (const char* bad : {"", "3,32", "3,32,30,1", "0,1,1", "a,b,c", "3,,3", "-1,2,2", "1,2,2x"}) {
    EXPECT_THROW(parse_shape(bad, "--shape"), UserError) << bad;
  }
}

}  // namespace
}  // namespace psbench::data
