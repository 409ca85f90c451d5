#include "common/bulk_memory.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace psbench {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Above glibc's largest dynamic mmap threshold (32 MiB): such a block is always a fresh mapping, untouched.
constexpr std::size_t kFreshMappingBytes = std::size_t{64} << 20;

// Pages of [data, data + bytes) that are resident in memory (touched at least once).
std::size_t resident_pages(const void* data, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(data) + bytes;
  std::vector<unsigned char> residency((end - begin + page - 1) / page);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, residency.data()), 0);
  return static_cast<std::size_t>(
      std::count_if(residency.begin(), residency.end(), [](unsigned char r) { return (r & 1U) != 0; }));
}

TEST(BulkVector, ResizeTouchesNoPageWhereAStdVectorTouchesEveryOne) {
  BulkVector<std::uint8_t> bulk;
  bulk.resize(kFreshMappingBytes);
  // From the second page on: a sanitizer's allocator fills the first 4 KiB of every block it hands out.
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(resident_pages(bulk.data() + page, bulk.size() - page), 0U) << "resize wrote into the new elements";
  std::vector<std::uint8_t> zeroed(kFreshMappingBytes);
  EXPECT_GE(resident_pages(zeroed.data(), zeroed.size()), zeroed.size() / page)
      << "the check itself: value-initialisation touches every page";
}

TEST(BulkVector, LargeArraysStartStaggeredPastAHugePageBoundarySmallOnesOnACacheLine) {
  // Arrays allocated in turn (weights, then velocity) start at distinct offsets within their huge pages: at one
  // offset their streams slowed a 2 MiB SGD update 1.5-3x here (docs/architecture.md, "Buffer alignment").
  std::vector<BulkVector<float>> large;
  std::vector<std::uintptr_t> offsets;
  for (int i = 0; i < 8; ++i) {
    large.emplace_back(kHugePage / sizeof(float), 1.0F);
    offsets.push_back(reinterpret_cast<std::uintptr_t>(large.back().data()) % kHugePage);
    EXPECT_EQ(offsets.back() % 4096, 0U) << "array " << i << " is off a page (a line's stagger slowed TCP 20-40%)";
    EXPECT_LT(offsets.back(), std::uintptr_t{64} << 10) << "array " << i << " wastes most of a huge page";
  }
  std::sort(offsets.begin(), offsets.end());
  EXPECT_EQ(std::adjacent_find(offsets.begin(), offsets.end()), offsets.end()) << "two of 8 arrays share an offset";
  const BulkVector<std::uint8_t> small(100, 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % 64, 0U);
}

TEST(BulkVector, ValuesGivenAreStoredAndCopiesCompareEqual) {
  const BulkVector<std::uint8_t> sevens(5000, 7);
  EXPECT_TRUE(std::all_of(sevens.begin(), sevens.end(), [](std::uint8_t v) { return v == 7; }));
  BulkVector<std::uint8_t> copy = sevens;
  EXPECT_EQ(copy, sevens);
  copy.push_back(1);
  EXPECT_EQ(copy.back(), 1);
  EXPECT_NE(copy, sevens);
}

TEST(BulkMemory, FreeIgnoresNull) {
  free_bulk(nullptr, 0);
  free_bulk(nullptr, kHugePage);
  void* memory = allocate_bulk(0);
  EXPECT_NE(memory, nullptr) << "zero bytes still give a distinct block";
  free_bulk(memory, 0);
}

}  // namespace
}  // namespace psbench
