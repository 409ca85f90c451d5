#include "common/aligned_buffer.hpp"

#include <algorithm>

#include "common/bulk_memory.hpp"

namespace psbench {

AlignedBuffer::AlignedBuffer(std::size_t count)
    : count_(count), data_(static_cast<float*>(allocate_bulk(count * sizeof(float))), Free{count * sizeof(float)}) {
  std::fill_n(data_.get(), count, 0.0F);
}

void AlignedBuffer::Free::operator()(float* pointer) const { free_bulk(pointer, bytes); }

}  // namespace psbench
