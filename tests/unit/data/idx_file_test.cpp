#include "data/idx_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "data_fixtures.hpp"

namespace psbench::data {
namespace {

using fixtures::IdxDefect;
using fixtures::TempDir;

// The message of the UserError that reading path throws, or "" if none.
std::string read_error(const std::string& path, int rank) {
  try {
    read_idx(path, rank);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(ReadIdx, ReadsDimensionsAndItems) {
  const TempDir dir("idx");
  const std::vector<std::uint8_t> items{1, 2, 3, 4, 5, 6};
  fixtures::write_idx_gz(dir.file("a.gz"), {3, 2}, items);
  const IdxArray array = read_idx(dir.file("a.gz"), 2);
  EXPECT_EQ(array.dims, (std::vector<std::uint32_t>{3, 2}));
  EXPECT_EQ(array.items, items);
}

TEST(ReadIdx, ReadsUncompressedFilesToo) {
  const TempDir dir("idx");
  const std::string bytes{0, 0, 8, 1, 0, 0, 0, 2, 9, 8};
  std::ofstream(dir.file("plain"), std::ios::binary) << bytes;
  EXPECT_EQ(read_idx(dir.file("plain"), 1).items, (std::vector<std::uint8_t>{9, 8}));
}

TEST(ReadIdx, EachBrokenFileGivesOneMessageNamingFileAndProblem) {
  const TempDir dir("idx");
  fixtures::write_idx_folder(dir.file("gz"), 20, 10, IdxDefect::kTruncatedGzip);
  fixtures::write_idx_folder(dir.file("items"), 20, 10, IdxDefect::kTruncatedItems);
  fixtures::write_idx_folder(dir.file("magic"), 20, 10, IdxDefect::kBadMagic);
  const std::string images = "/train-images-idx3-ubyte.gz";
  EXPECT_NE(read_error(dir.file("gz") + images, 3).find("truncated or corrupt gzip stream"), std::string::npos);
  EXPECT_NE(read_error(dir.file("items") + images, 3).find("truncated IDX file: the header promises 15680 items"),
            std::string::npos);
  EXPECT_NE(read_error(dir.file("magic") + images, 3).find("bad IDX magic number"), std::string::npos);
  EXPECT_NE(read_error(dir.file("magic") + images, 3).find(dir.file("magic")), std::string::npos);
  EXPECT_NE(read_error(dir.file("missing.gz"), 1).find("no such file"), std::string::npos);
  EXPECT_NE(read_error(dir.file("items") + "/train-labels-idx1-ubyte.gz", 3).find("has 1 dimensions, expected 3"),
            std::string::npos);
}

TEST(ReadIdx, RejectsOtherElementTypesAndTrailingBytes) {
  const TempDir dir("idx");
  std::ofstream(dir.file("float"), std::ios::binary) << std::string{0, 0, 0x0D, 1, 0, 0, 0, 0};
  EXPECT_NE(read_error(dir.file("float"), 1).find("element type 0x0d"), std::string::npos);
  std::ofstream(dir.file("trailing"), std::ios::binary) << std::string{0, 0, 8, 1, 0, 0, 0, 1, 5, 6};
  EXPECT_NE(read_error(dir.file("trailing"), 1).find("bytes after its 1 items"), std::string::npos);
  std::ofstream(dir.file("short"), std::ios::binary) << std::string{0, 0, 8};
  EXPECT_NE(read_error(dir.file("short"), 1).find("no complete header"), std::string::npos);
}

}  // namespace
}  // namespace psbench::data
