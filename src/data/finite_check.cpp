#include "data/finite_check.hpp"

#include <bit>
#include <string>

#include "data/layout.hpp"

namespace psbench::data {
namespace {

// A float is NaN or infinite exactly when its exponent bits are all ones.
constexpr std::uint32_t kExponentBits = 0x7f800000U;
// Values per block: a fixed trip count lets the compiler vectorise the inner loop at -O2 (SSE2 compares).
constexpr std::size_t kBlock = 64;

constexpr const char* kFix =
    "; psbench trains on finite float32 images: remake the file from its source ('psbench data convert' or "
    "'psbench data synth')";

std::uint32_t non_finite_flag(float value) {
  return (std::bit_cast<std::uint32_t>(value) & kExponentBits) == kExponentBits ? 1U : 0U;
}

}  // namespace

bool all_finite(std::span<const float> values) {
  const float* data = values.data();
  const std::size_t count = values.size();
  std::uint32_t bad = 0;
  std::size_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    std::uint32_t block = 0;
    for (std::size_t lane = 0; lane < kBlock; ++lane) block |= non_finite_flag(data[i + lane]);
    bad |= block;
  }
  for (; i < count; ++i) bad |= non_finite_flag(data[i]);
  return bad == 0;
}

std::optional<std::uint64_t> first_non_finite_sample(std::span<const float> values, std::size_t values_per_sample) {
  if (values_per_sample == 0 || all_finite(values)) return std::nullopt;
  for (std::size_t sample = 0; sample * values_per_sample < values.size(); ++sample) {
    if (!all_finite(values.subspan(sample * values_per_sample, values_per_sample))) return sample;
  }
  return std::nullopt;
}

std::uint64_t count_non_finite_samples(std::span<const float> values, std::size_t values_per_sample) {
  if (values_per_sample == 0 || all_finite(values)) return 0;
  std::uint64_t bad = 0;
  for (std::size_t sample = 0; sample * values_per_sample < values.size(); ++sample) {
    if (!all_finite(values.subspan(sample * values_per_sample, values_per_sample))) ++bad;
  }
  return bad;
}

UserError non_finite_sample(const SplitInfo& info, std::uint64_t index) {
  return UserError("'" + info.path + "': " + layout::images_path(info.split) + "[" + std::to_string(index) +
                   "] (sample " + std::to_string(index) + ") holds NaN or infinite values" + kFix);
}

UserError non_finite_samples(const SplitInfo& info, std::uint64_t count, std::uint64_t first) {
  return UserError("'" + info.path + "': " + layout::images_path(info.split) + " holds " + std::to_string(count) +
                   (count == 1 ? " sample" : " samples") + " with NaN or infinite values, the first " +
                   layout::images_path(info.split) + "[" + std::to_string(first) + "]" + kFix);
}

void FiniteCheck::check(const void* images, std::uint64_t count, std::uint64_t first_index) {
  if (first_bad_ || info_.pixel_type != PixelType::kFloat32) return;
  const std::size_t values = info_.shape.values();
  const std::span<const float> block(static_cast<const float*>(images), count * values);
  if (const auto bad = first_non_finite_sample(block, values)) first_bad_ = first_index + *bad;
}

void FiniteCheck::throw_if_bad() const {
  if (first_bad_) throw non_finite_sample(info_, *first_bad_);
}

}  // namespace psbench::data
