#pragma once

#include <cstdint>

namespace psbench::data {

/// A contiguous run of samples [first, first + count) of a split.
struct SampleRange {
  std::uint64_t first = 0;  ///< index of the first sample
  std::uint64_t count = 0;  ///< number of samples
  /// One past the last sample.
  [[nodiscard]] std::uint64_t end() const { return first + count; }
};

/// Part index of parts of total samples: contiguous and balanced (sizes differ by at most one, the larger
/// parts first), so the parts cover every sample exactly once. Requires 0 <= index < parts.
SampleRange partition_range(std::uint64_t total, int parts, int index);

/// The samples that a and b have in common (count 0 when they are disjoint).
SampleRange intersect(SampleRange a, SampleRange b);

}  // namespace psbench::data
