#include "data/partition.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::data {

SampleRange partition_range(std::uint64_t total, int parts, int index) {
  PSBENCH_CHECK(parts > 0 && index >= 0 && index < parts) << "part " << index << " of " << parts;
  const auto n = static_cast<std::uint64_t>(parts);
  const auto i = static_cast<std::uint64_t>(index);
  const std::uint64_t base = total / n;
  const std::uint64_t larger = total % n;
  return {i * base + std::min(i, larger), base + (i < larger ? 1 : 0)};
}

SampleRange intersect(SampleRange a, SampleRange b) {
  const std::uint64_t first = std::max(a.first, b.first);
  const std::uint64_t end = std::min(a.end(), b.end());
  return end > first ? SampleRange{first, end - first} : SampleRange{first, 0};
}

}  // namespace psbench::data
