#include "data/normalization.hpp"

#include <cmath>

#include "common/check.hpp"
#include "data/layout.hpp"

namespace psbench::data {
namespace {

constexpr std::size_t kLevels = 256;
constexpr double kSmallestStd = 1e-12;

}  // namespace

PixelStatistics::PixelStatistics(SampleShape shape)
    : shape_(shape),
      sums_(static_cast<std::size_t>(shape.channels), 0),
      squares_(static_cast<std::size_t>(shape.channels), 0) {}

void PixelStatistics::add(std::span<const std::uint8_t> samples) {
  const std::size_t plane = static_cast<std::size_t>(shape_.height) * static_cast<std::size_t>(shape_.width);
  const std::size_t values = shape_.values();
  PSBENCH_CHECK(values > 0 && samples.size() % values == 0) << samples.size() << " pixels, sample of " << values;
  for (std::size_t offset = 0; offset < samples.size(); offset += plane) {
    const std::size_t channel = (offset % values) / plane;
    std::uint64_t sum = 0;
    std::uint64_t square = 0;
    for (std::size_t i = offset; i < offset + plane; ++i) {
      const std::uint64_t v = samples[i];
      sum += v;
      square += v * v;
    }
    sums_[channel] += sum;
    squares_[channel] += square;
  }
  pixels_per_channel_ += samples.size() / values * plane;
}

std::vector<double> PixelStatistics::mean() const {
  std::vector<double> result(sums_.size(), 0.0);
  if (pixels_per_channel_ == 0) return result;
  for (std::size_t c = 0; c < sums_.size(); ++c) {
    result[c] = static_cast<double>(sums_[c]) / static_cast<double>(pixels_per_channel_) / layout::kPixelScale;
  }
  return result;
}

std::vector<double> PixelStatistics::stddev() const {
  std::vector<double> result(sums_.size(), 0.0);
  if (pixels_per_channel_ == 0) return result;
  const auto n = static_cast<long double>(pixels_per_channel_);
  for (std::size_t c = 0; c < sums_.size(); ++c) {
    const long double mean = static_cast<long double>(sums_[c]) / n;
    const long double variance = static_cast<long double>(squares_[c]) / n - mean * mean;
    result[c] = static_cast<double>(std::sqrt(std::max(variance, 0.0L))) / layout::kPixelScale;
  }
  return result;
}

Normalizer::Normalizer(SampleShape shape, std::span<const double> mean, std::span<const double> stddev)
    : shape_(shape), table_(static_cast<std::size_t>(shape.channels) * kLevels) {
  PSBENCH_CHECK(mean.size() == static_cast<std::size_t>(shape.channels) && stddev.size() == mean.size())
      << mean.size() << " means, " << stddev.size() << " stds for " << shape.channels << " channels";
  for (std::size_t c = 0; c < mean.size(); ++c) {
    const double scale = stddev[c] > kSmallestStd ? stddev[c] : 1.0;
    for (std::size_t v = 0; v < kLevels; ++v) {
      table_[c * kLevels + v] = static_cast<float>((static_cast<double>(v) / layout::kPixelScale - mean[c]) / scale);
    }
  }
}

void Normalizer::apply(std::span<const std::uint8_t> pixels, std::span<float> out) const {
  PSBENCH_CHECK(out.size() == pixels.size()) << out.size() << " != " << pixels.size();
  const std::size_t plane = static_cast<std::size_t>(shape_.height) * static_cast<std::size_t>(shape_.width);
  const std::size_t values = shape_.values();
  for (std::size_t offset = 0; offset < pixels.size(); offset += plane) {
    const float* table = table_.data() + (offset % values) / plane * kLevels;
    for (std::size_t i = offset; i < offset + plane; ++i) out[i] = table[pixels[i]];
  }
}

}  // namespace psbench::data
