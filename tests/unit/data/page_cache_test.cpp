#include "data/page_cache.hpp"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include <fstream>
#include <vector>

#include "common/error.hpp"
#include "data_fixtures.hpp"

namespace psbench::data {
namespace {

TEST(PageCache, DropEvictsTheCleanPagesOfAFile) {
  // The test folder lies beside the build, not in /tmp, which may be tmpfs (its pages are the storage).
  const std::string path = "page_cache_test.bin";
  struct statfs info {};
  ASSERT_EQ(statfs(".", &info), 0);
  if (info.f_type == TMPFS_MAGIC) GTEST_SKIP() << "the working folder is tmpfs: nothing to drop";
  {
    const std::vector<char> bytes(std::size_t{8} << 20, 'x');
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::vector<char> back(std::size_t{8} << 20);
  std::ifstream(path, std::ios::binary).read(back.data(), static_cast<std::streamsize>(back.size()));
  EXPECT_GT(cached_fraction(path), 0.9) << "a file just read should be cached";
  drop_cached_pages(path);
  EXPECT_LT(cached_fraction(path), 0.1);
  std::remove(path.c_str());
}

TEST(PageCache, MissingFileIsAUserError) { EXPECT_THROW(drop_cached_pages("/nonexistent/psbench.h5"), UserError); }

}  // namespace
}  // namespace psbench::data
