#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace psbench::nn {

/// A zero-filled float array on a 64-byte boundary (a cache line, an AVX-512 vector), sized once.
class AlignedBuffer {
 public:
  /// Allocates and zeroes count floats; throws std::bad_alloc when memory runs out.
  explicit AlignedBuffer(std::size_t count);

  /// The values.
  [[nodiscard]] std::span<float> span() const { return {data_.get(), count_}; }

 private:
  struct Free {
    void operator()(float* pointer) const;
  };
  std::size_t count_;
  std::unique_ptr<float[], Free> data_;
};

}  // namespace psbench::nn
