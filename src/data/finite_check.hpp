#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "common/error.hpp"
#include "data/split_file.hpp"

namespace psbench::data {

/// True when no value is NaN or infinite.
bool all_finite(std::span<const float> values);

/// Index of the first sample (values_per_sample values each) holding a NaN or infinite value, if any.
std::optional<std::uint64_t> first_non_finite_sample(std::span<const float> values, std::size_t values_per_sample);

/// Samples (values_per_sample values each) holding a NaN or infinite value.
std::uint64_t count_non_finite_samples(std::span<const float> values, std::size_t values_per_sample);

/// The error for sample `index` of info's images, which holds a NaN or infinite value.
UserError non_finite_sample(const SplitInfo& info, std::uint64_t index);

/// The error for info's images, of which `count` samples hold NaN or infinite values, the first at `first`.
UserError non_finite_samples(const SplitInfo& info, std::uint64_t count, std::uint64_t first);

/// Remembers the first sample with a NaN or infinite value among the float32 images read (uint8 images
/// cannot hold one: nothing to check).
class FiniteCheck {
 public:
  /// A check of images of info's type and shape.
  explicit FiniteCheck(const SplitInfo& info) : info_(info) {}
  /// Checks count samples in the stored type at images, the first being sample first_index of the split.
  void check(const void* images, std::uint64_t count, std::uint64_t first_index);
  /// Throws non_finite_sample() for the first bad sample seen, if any.
  void throw_if_bad() const;

 private:
  const SplitInfo& info_;
  std::optional<std::uint64_t> first_bad_;
};

}  // namespace psbench::data
