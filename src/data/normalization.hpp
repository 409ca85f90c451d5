#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "data/sample_shape.hpp"

namespace psbench::data {

/// Exact per-channel sums of uint8 pixels, giving the mean and standard deviation on the [0, 1] scale.
class PixelStatistics {
 public:
  /// Statistics for samples of this shape.
  explicit PixelStatistics(SampleShape shape);
  /// Adds whole samples (a multiple of shape.values() pixels, NCHW).
  void add(std::span<const std::uint8_t> samples);
  /// Per-channel mean of pixel / 255.
  [[nodiscard]] std::vector<double> mean() const;
  /// Per-channel population standard deviation of pixel / 255.
  [[nodiscard]] std::vector<double> stddev() const;

 private:
  SampleShape shape_;
  std::vector<std::uint64_t> sums_;
  std::vector<std::uint64_t> squares_;
  std::uint64_t pixels_per_channel_ = 0;
};

/// Maps uint8 pixels to float32 per channel as (pixel / 255 - mean[c]) / std[c] through a lookup table, so
/// every writer and reader produces bit-identical values.
class Normalizer {
 public:
  /// A normaliser for samples of shape with per-channel mean and std (a std of zero is treated as one).
  Normalizer(SampleShape shape, std::span<const double> mean, std::span<const double> stddev);
  /// Normalises whole samples: out.size() == pixels.size().
  void apply(std::span<const std::uint8_t> pixels, std::span<float> out) const;

 private:
  SampleShape shape_;
  std::vector<float> table_;  // channels x 256
};

}  // namespace psbench::data
