#include "data/split_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "data/dataset_writer.hpp"
#include "data/inspect.hpp"
#include "data/loader.hpp"
#include "data/raw_partition.hpp"
#include "data_fixtures.hpp"

namespace psbench::data {
namespace {

using fixtures::Defect;
using fixtures::TempDir;

// The message of the UserError that loading the training split of path throws, or "" if none.
std::string load_error(const std::string& path) {
  try {
    load_split(path, "train");
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

DatasetDescription tiny_description() {
  DatasetDescription description;
  description.shape = {2, 1, 3};
  description.num_classes = 3;
  description.class_names = {"a", "b", "c"};
  description.source = "unit test";
  description.chunk_bytes = 12;  // two samples per chunk
  return description;
}

TEST(DatasetWriter, RoundTripsSamplesLabelsAndAttributes) {
  const TempDir dir("writer");
  const std::string path = dir.file("tiny.h5");
  DatasetWriter writer(path, tiny_description());
  std::vector<std::uint8_t> images(5 * 6);
  for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<std::uint8_t>(i * 9);
  const std::vector<std::int32_t> labels{0, 1, 2, 1, 0};
  writer.begin_split("train", 5);
  writer.append(images.data(), std::span<const std::int32_t>(labels).first(2));
  writer.append(images.data() + 12, std::span<const std::int32_t>(labels).subspan(2));
  writer.begin_split("test", 1);
  writer.append(images.data(), std::span<const std::int32_t>(labels).first(1));
  const std::vector<double> mean{0.1, 0.2};
  const std::vector<double> stddev{0.3, 0.4};
  writer.set_statistics(mean, stddev);
  EXPECT_FALSE(std::filesystem::exists(path)) << "visible before commit";
  writer.commit();
  ASSERT_TRUE(std::filesystem::exists(path));

  const RawPartition raw = read_whole_split(path, "train");
  EXPECT_TRUE(std::ranges::equal(raw.pixels, images));
  EXPECT_EQ(raw.labels, labels);
  EXPECT_EQ(raw.info.shape.channels, 2);
  EXPECT_EQ(raw.info.num_classes, 3);
  EXPECT_EQ(raw.info.chunk_samples, 2U);
  EXPECT_EQ(raw.info.mean, mean);
  EXPECT_EQ(raw.info.stddev, stddev);
  const Samples samples = load_split(path, "train");
  EXPECT_EQ(samples.images.type(), PixelType::kUint8);
  EXPECT_EQ(samples.images.pixels().size(), images.size()) << "uint8 files stay uint8 in memory";
  const std::vector<float> normalised = fixtures::normalised_images(samples);
  EXPECT_FLOAT_EQ(normalised[1], static_cast<float>((9.0 / 255.0 - 0.1) / 0.3));
  EXPECT_FLOAT_EQ(normalised[4], static_cast<float>((36.0 / 255.0 - 0.2) / 0.4));
  const std::string description = describe_file(path);
  EXPECT_NE(description.find("class_names = [\"a\", \"b\", \"c\"]"), std::string::npos) << description;
  EXPECT_NE(description.find("source = \"unit test\""), std::string::npos) << description;
  EXPECT_NE(description.find("/train/images: uint8 [5, 2, 1, 3]"), std::string::npos) << description;
  EXPECT_NE(check_layout(path).find("layout: ok"), std::string::npos);
}

TEST(DatasetWriter, LeavesNothingBehindWithoutCommit) {
  const TempDir dir("writer");
  {
    DatasetWriter writer(dir.file("never.h5"), tiny_description());
    writer.begin_split("train", 3);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(SplitFile, EachDefectIsOneMessageNamingTheFileAndTheProblem) {
  const TempDir dir("defects");
  const struct {
    Defect defect;
    const char* expected;
  } cases[] = {
      {Defect::kMissingLabels, "has no dataset '/train/labels'"},
      {Defect::kCountMismatch, "/train/images holds 10 samples but /train/labels holds 9 labels"},
      {Defect::kLabelOutOfRange, "/train/labels[9] is 5, outside [0, 5)"},
      {Defect::kUnsupportedType, "/train/images has unsupported type int16"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.file("defect" + std::to_string(static_cast<int>(c.defect)) + ".h5");
    fixtures::write_defective_file(path, c.defect);
    const std::string message = load_error(path);
    EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    try {
      check_layout(path);
      ADD_FAILURE() << "check_layout accepted " << c.expected;
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find(c.expected), std::string::npos) << error.what();
    }
  }
}

TEST(CheckLayout, CountsTheSamplesHoldingNaNAndNamesTheFirst) {
  const TempDir dir("nan");
  const std::string path = dir.file("nan.h5");
  fixtures::write_non_finite_file(path, 40, 31);
  try {
    check_layout(path);
    ADD_FAILURE() << "no error for NaN images";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("'" + path +
                        "': /train/images holds 9 samples with NaN or infinite values, the first "
                        "/train/images[31]"),
              std::string::npos)
        << error.what();
  }
  fixtures::write_non_finite_file(path, 40, 40);  // no NaN at all
  EXPECT_NE(check_layout(path).find("layout: ok"), std::string::npos);
}

TEST(SplitFile, MissingAndNonHdf5FilesAndBadSplits) {
  const TempDir dir("defects");
  EXPECT_NE(load_error(dir.file("absent.h5")).find("absent.h5': no such file"), std::string::npos);
  std::ofstream(dir.file("text.h5")) << "plain text\n";
  EXPECT_NE(load_error(dir.file("text.h5")).find("text.h5': not an HDF5 file"), std::string::npos);
  EXPECT_NE(load_error(dir.path()).find("is a directory"), std::string::npos);
  fixtures::write_small_synth(dir.file("ok.h5"), 4, 2);
  EXPECT_THROW(load_split(dir.file("ok.h5"), "validation"), UserError);
  EXPECT_THROW(describe_file(dir.file("text.h5")), UserError);
}

}  // namespace
}  // namespace psbench::data
