#include "common/bulk_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

namespace psbench {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// bytes rounded up to a whole number of alignment units (at least one).
std::size_t round_up(std::size_t bytes, std::size_t alignment) {
  return std::max<std::size_t>(1, (bytes + alignment - 1) / alignment) * alignment;
}

}  // namespace

void* allocate_bulk(std::size_t bytes) {
  const bool huge = bytes >= kHugePage;
  const std::size_t alignment = huge ? kHugePage : kAlignment;
  const std::size_t rounded = round_up(bytes, alignment);
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off, the memory keeps its 4 KiB pages.
  if (huge) (void)madvise(memory, rounded, MADV_HUGEPAGE);
  return memory;
}

void free_bulk(void* pointer) noexcept { std::free(pointer); }

}  // namespace psbench
