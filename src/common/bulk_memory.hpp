#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace psbench {

/// Allocates bytes for a bulk array on a 64-byte boundary (a cache line, an AVX-512 vector); from 2 MiB in a
/// block advised into transparent huge pages, where a VM's 4 KiB page fault costs ~12 us, and started past the
/// block's 2 MiB boundary by one of 8 staggers (k x 4 KiB, k = 1..8) taken in turn: arrays streamed together
/// (weights and velocity) then never share their physical offsets, which made a 2 MiB SGD update 2-3x slower
/// (docs/architecture.md, "Buffer alignment"). Throws std::bad_alloc when memory runs out.
void* allocate_bulk(std::size_t bytes);

/// Frees memory that allocate_bulk(bytes) returned (nullptr is ignored).
void free_bulk(void* pointer, std::size_t bytes) noexcept;

/// A std::vector allocator over allocate_bulk whose value-less construct default-initialises: resize() of a
/// vector of numbers writes nothing, so a buffer that a read fills next is touched once, by the read, not
/// zeroed first (307 MB of samples: 0.8 s of page faults in a VM, docs/data.md).
template <typename T>
class BulkAllocator {
 public:
  using value_type = T;

  BulkAllocator() noexcept = default;
  /// Rebinding copy (every BulkAllocator is interchangeable).
  template <typename U>
  explicit BulkAllocator(const BulkAllocator<U>& /*other*/) noexcept {}

  /// Memory for count values.
  [[nodiscard]] T* allocate(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_bulk(count * sizeof(T)));
  }
  /// Frees memory of allocate.
  void deallocate(T* pointer, std::size_t count) noexcept { free_bulk(pointer, count * sizeof(T)); }

  /// Default-initialises (a number keeps whatever the memory held).
  template <typename U>
  void construct(U* pointer) noexcept(noexcept(::new (static_cast<void*>(pointer)) U)) {
    ::new (static_cast<void*>(pointer)) U;
  }
  /// Constructs from arguments, as std::allocator does.
  template <typename U, typename... Args>
  void construct(U* pointer, Args&&... args) {
    ::new (static_cast<void*>(pointer)) U(std::forward<Args>(args)...);
  }

  /// Every BulkAllocator frees what any other allocated.
  template <typename U>
  bool operator==(const BulkAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

/// A vector on bulk memory whose resize leaves new numbers uninitialised: for arrays filled right after.
template <typename T>
using BulkVector = std::vector<T, BulkAllocator<T>>;

}  // namespace psbench
