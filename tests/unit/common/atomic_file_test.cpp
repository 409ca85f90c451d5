#include "common/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace psbench {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(AtomicFile, WritesContentsAndLeavesNoTemporary) {
  const auto folder = std::filesystem::temp_directory_path() / ("psbench_atomic_" + std::to_string(::getpid()));
  const auto target = folder / "nested" / "result.json";
  write_file_atomically(target.string(), "{\"a\": 1}");
  EXPECT_EQ(read_all(target), "{\"a\": 1}");
  write_file_atomically(target.string(), "second");
  EXPECT_EQ(read_all(target), "second");
  EXPECT_FALSE(std::filesystem::exists(temporary_path_for(target.string())));
  std::filesystem::remove_all(folder);
}

TEST(AtomicFile, UnwritableFolderIsAUserErrorNamingThePath) {
  try {
    write_file_atomically("/proc/psbench_cannot_write_here/x.json", "x");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("/proc/psbench_cannot_write_here/x.json"), std::string::npos);
  }
}

TEST(ErrorLine, HasThePsbenchPrefix) { EXPECT_EQ(format_error_line("bad flag"), "psbench: error: bad flag"); }

}  // namespace
}  // namespace psbench
