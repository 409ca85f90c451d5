#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/bulk_memory.hpp"
#include "data/normalization.hpp"
#include "data/pixel_type.hpp"
#include "data/sample_shape.hpp"

namespace psbench::data {

/// Images kept in the file's stored type (uint8 pixels or float32 values), a quarter of the memory of
/// float32 for uint8 files; normalise() turns samples into the model's float32 input on demand, with the
/// same lookup table the file's writers use, so every path yields bit-identical values.
class StoredImages {
 public:
  /// No samples (float32).
  StoredImages() = default;
  /// uint8 pixels (whole samples, NCHW), normalised as (pixel / 255 - mean[c]) / std[c].
  static StoredImages from_pixels(SampleShape shape, BulkVector<std::uint8_t> pixels, std::span<const double> mean,
                                  std::span<const double> stddev);
  /// float32 values (whole samples, NCHW), already normalised: normalise() copies them.
  static StoredImages from_values(SampleShape shape, BulkVector<float> values);

  /// The stored type.
  [[nodiscard]] PixelType type() const { return type_; }
  /// Samples held.
  [[nodiscard]] std::size_t count() const;
  /// Bytes of memory the stored values take.
  [[nodiscard]] std::size_t stored_bytes() const { return pixels_.size() + values_.size() * sizeof(float); }
  /// Writes samples [first, first + count) as float32 model input to out (count x C x H x W values).
  void normalise(std::size_t first, std::size_t count, std::span<float> out) const;
  /// The stored pixels (uint8 images; empty otherwise).
  [[nodiscard]] std::span<const std::uint8_t> pixels() const { return pixels_; }

 private:
  SampleShape shape_;
  PixelType type_ = PixelType::kFloat32;
  BulkVector<std::uint8_t> pixels_;
  BulkVector<float> values_;
  std::optional<Normalizer> normalizer_;
};

}  // namespace psbench::data
