#include "common/aligned_buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace psbench {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// bytes rounded up to a whole number of alignment units (at least one).
std::size_t round_up(std::size_t bytes, std::size_t alignment) {
  return std::max<std::size_t>(1, (bytes + alignment - 1) / alignment) * alignment;
}

}  // namespace

AlignedBuffer::AlignedBuffer(std::size_t count) : count_(count) {
  const bool huge = count * sizeof(float) >= kHugePage;
  const std::size_t alignment = huge ? kHugePage : kAlignment;
  const std::size_t bytes = round_up(count * sizeof(float), alignment);
  data_.reset(static_cast<float*>(std::aligned_alloc(alignment, bytes)));
  if (!data_) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off, the buffer keeps its 4 KiB pages.
  if (huge) (void)madvise(data_.get(), bytes, MADV_HUGEPAGE);
  std::fill_n(data_.get(), count, 0.0F);
}

void AlignedBuffer::Free::operator()(float* pointer) const { std::free(pointer); }

}  // namespace psbench
