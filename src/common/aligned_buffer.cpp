#include "common/aligned_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace psbench {
namespace {

constexpr std::size_t kAlignment = 64;

}  // namespace

AlignedBuffer::AlignedBuffer(std::size_t count) : count_(count) {
  const std::size_t bytes =
      std::max<std::size_t>(1, (count * sizeof(float) + kAlignment - 1) / kAlignment) * kAlignment;
  data_.reset(static_cast<float*>(std::aligned_alloc(kAlignment, bytes)));
  if (!data_) throw std::bad_alloc();
  std::fill_n(data_.get(), count, 0.0F);
}

void AlignedBuffer::Free::operator()(float* pointer) const { std::free(pointer); }

}  // namespace psbench
