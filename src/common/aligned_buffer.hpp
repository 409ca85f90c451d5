#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace psbench {

/// A zero-filled float array from allocate_bulk (common/bulk_memory.hpp: a 64-byte boundary, and from 2 MiB
/// transparent huge pages, staggered past their 2 MiB boundary), sized once. Every buffer that MPI moves in bulk is
/// one: a kernel copy (Open MPI's CMA single copy within a node) whose destination lies 1-31 bytes past its source's
/// offset within a cache line runs 5-6x slower on AMD Zen 3 (docs/architecture.md, "Buffer alignment"), and two buffers
/// on this boundary never do; in huge pages a kernel copy runs faster (docs/measured.md).
class AlignedBuffer {
 public:
  /// Allocates and zeroes count floats; throws std::bad_alloc when memory runs out.
  explicit AlignedBuffer(std::size_t count);

  /// The values.
  [[nodiscard]] std::span<float> span() const { return {data_.get(), count_}; }

 private:
  struct Free {
    std::size_t bytes = 0;  // what was allocated: free_bulk finds the block's start by it
    void operator()(float* pointer) const;
  };
  std::size_t count_;
  std::unique_ptr<float[], Free> data_;
};

}  // namespace psbench
