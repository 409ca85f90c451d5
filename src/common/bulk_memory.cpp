#include "common/bulk_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace psbench {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
// A large array starts 1-8 pages past its block's 2 MiB boundary, by a colour taken in turn. Whole pages: a stagger
// of a page and a line (4,160 B) slowed the exchanges over TCP by 20-40% (the test rack.training).
constexpr std::size_t kStagger = 4096;
constexpr std::size_t kColours = 8;

std::atomic<std::size_t> next_colour{0};

// bytes rounded up to a whole number of alignment units (at least one).
std::size_t round_up(std::size_t bytes, std::size_t alignment) {
  return std::max<std::size_t>(1, (bytes + alignment - 1) / alignment) * alignment;
}

bool is_huge(std::size_t bytes) { return bytes >= kHugePage; }

}  // namespace

void* allocate_bulk(std::size_t bytes) {
  if (!is_huge(bytes)) {
    void* memory = std::aligned_alloc(kAlignment, round_up(bytes, kAlignment));
    if (memory == nullptr) throw std::bad_alloc();
    return memory;
  }
  const std::size_t stagger = kStagger * (1 + next_colour.fetch_add(1, std::memory_order_relaxed) % kColours);
  const std::size_t rounded = round_up(stagger + bytes, kHugePage);
  void* block = std::aligned_alloc(kHugePage, rounded);
  if (block == nullptr) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off, the memory keeps its 4 KiB pages.
  (void)madvise(block, rounded, MADV_HUGEPAGE);
  return static_cast<char*>(block) + stagger;
}

void free_bulk(void* pointer, std::size_t bytes) noexcept {
  if (pointer == nullptr || !is_huge(bytes)) {
    std::free(pointer);
    return;
  }
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  std::free(reinterpret_cast<void*>(address - address % kHugePage));  // the stagger is under 2 MiB
}

}  // namespace psbench
