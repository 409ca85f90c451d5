#include "data/fashion_mnist.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "common/error.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/inspect.hpp"
#include "data/loader.hpp"
#include "data/raw_partition.hpp"
#include "data_fixtures.hpp"

namespace psbench::data {
namespace {

using fixtures::TempDir;

constexpr std::size_t kImageBytes = 28 * 28;
constexpr std::size_t kImagesHeader = 16;
constexpr std::size_t kLabelsHeader = 8;

// The decompressed bytes of a gzip file, read independently of the code under test.
std::vector<std::uint8_t> gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr) << path;
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> piece(1 << 20);
  int got = 0;
  while ((got = gzread(file, piece.data(), static_cast<unsigned>(piece.size()))) > 0) {
    bytes.insert(bytes.end(), piece.begin(), piece.begin() + got);
  }
  gzclose(file);
  return bytes;
}

bool have_fashion_mnist() {
  return std::filesystem::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz");
}

TEST(ConvertFashionMnist, FirstAndLastSamplesEqualTheIdxBytesAndAttributesArePresent) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const TempDir dir("convert");
  ConvertOptions options;
  options.out = dir.file("fashion.h5");
  const ConvertSummary summary = convert_fashion_mnist(options);
  EXPECT_EQ(summary.train_samples, 60000U);
  EXPECT_EQ(summary.test_samples, 10000U);
  for (const auto& [split, prefix] : {std::pair<std::string, std::string>{"train", "train"}, {"test", "t10k"}}) {
    const auto images = gunzip(std::string(kFashionMnistDir) + "/" + prefix + "-images-idx3-ubyte.gz");
    const auto labels = gunzip(std::string(kFashionMnistDir) + "/" + prefix + "-labels-idx1-ubyte.gz");
    const RawPartition raw = read_whole_split(options.out, split);
    const std::size_t n = raw.range.count;
    ASSERT_EQ(raw.pixels.size(), n * kImageBytes);
    ASSERT_EQ(images.size(), kImagesHeader + n * kImageBytes);
    for (const std::size_t sample : {std::size_t{0}, n - 1}) {
      EXPECT_TRUE(std::equal(raw.pixels.begin() + static_cast<std::ptrdiff_t>(sample * kImageBytes),
                             raw.pixels.begin() + static_cast<std::ptrdiff_t>((sample + 1) * kImageBytes),
                             images.begin() + static_cast<std::ptrdiff_t>(kImagesHeader + sample * kImageBytes)))
          << split << " image " << sample;
      EXPECT_EQ(raw.labels[sample], labels[kLabelsHeader + sample]) << split << " label " << sample;
    }
  }
  const SplitInfo info = read_split_info(options.out, "train");
  EXPECT_EQ(info.num_classes, 10);
  EXPECT_EQ(info.shape.values(), kImageBytes);
  // Fashion-MNIST's well-known statistics: mean 0.2860, std 0.3530.
  EXPECT_NEAR(info.mean[0], 0.2860, 1e-4);
  EXPECT_NEAR(info.stddev[0], 0.3530, 1e-4);
  const std::string description = describe_file(options.out);
  for (const char* expected :
       {"num_classes = 10", "class_names = [\"T-shirt/top\", \"Trouser\"", "source = \"Fashion-MNIST", "mean = [0.286",
        "std = [0.353", "shape = [1, 28, 28]", "/train/images: uint8 [60000, 1, 28, 28]", "chunked [1337, 1, 28, 28]",
        "/test/labels: uint8 [10000]"}) {
    EXPECT_NE(description.find(expected), std::string::npos) << expected << " missing from:\n" << description;
  }
  EXPECT_NE(check_layout(options.out).find("samples per class 6000..6000"), std::string::npos);
}

TEST(ConvertFashionMnist, Float32StoresTheNormalisedValuesTheLoaderMakesFromUint8) {
  const TempDir dir("convert");
  fixtures::write_idx_folder(dir.file("idx"), 30, 12, fixtures::IdxDefect::kNone);
  ConvertOptions options;
  options.from = dir.file("idx");
  options.out = dir.file("u8.h5");
  options.limit = 25;
  convert_fashion_mnist(options);
  options.out = dir.file("f32.h5");
  options.pixel_type = PixelType::kFloat32;
  convert_fashion_mnist(options);
  EXPECT_EQ(read_split_info(dir.file("f32.h5"), "train").pixel_type, PixelType::kFloat32);
  EXPECT_EQ(read_split_info(dir.file("f32.h5"), "train").samples, 25U);
  EXPECT_EQ(read_split_info(dir.file("f32.h5"), "test").samples, 12U);
  const Samples from_u8 = load_split(dir.file("u8.h5"), "train");
  const Samples from_f32 = load_split(dir.file("f32.h5"), "train");
  EXPECT_EQ(fixtures::normalised_images(from_u8), fixtures::normalised_images(from_f32));
  EXPECT_EQ(from_u8.labels, from_f32.labels);
  EXPECT_NE(describe_file(dir.file("f32.h5")).find("/train/images: float32 [25, 1, 28, 28], 78.4 kB"),
            std::string::npos);
}

TEST(ConvertFashionMnist, BadInputNamesTheFolderOrFile) {
  const TempDir dir("convert");
  ConvertOptions options;
  options.from = dir.file("absent");
  options.out = dir.file("out.h5");
  try {
    convert_fashion_mnist(options);
    FAIL() << "no error for a missing folder";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("--from '" + dir.file("absent") + "' is not a folder"), std::string::npos);
  }
  fixtures::write_idx_folder(dir.file("gz"), 20, 10, fixtures::IdxDefect::kTruncatedGzip);
  options.from = dir.file("gz");
  EXPECT_THROW(convert_fashion_mnist(options), UserError);
  EXPECT_FALSE(std::filesystem::exists(options.out)) << "no output after a failed conversion";
}

}  // namespace
}  // namespace psbench::data
