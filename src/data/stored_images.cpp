#include "data/stored_images.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::data {

StoredImages StoredImages::from_pixels(SampleShape shape, BulkVector<std::uint8_t> pixels, std::span<const double> mean,
                                       std::span<const double> stddev) {
  PSBENCH_CHECK(shape.values() > 0 && pixels.size() % shape.values() == 0)
      << pixels.size() << " pixels, samples of " << shape.values();
  StoredImages images;
  images.shape_ = shape;
  images.type_ = PixelType::kUint8;
  images.pixels_ = std::move(pixels);
  images.normalizer_.emplace(shape, mean, stddev);
  return images;
}

StoredImages StoredImages::from_values(SampleShape shape, BulkVector<float> values) {
  PSBENCH_CHECK(shape.values() > 0 && values.size() % shape.values() == 0)
      << values.size() << " values, samples of " << shape.values();
  StoredImages images;
  images.shape_ = shape;
  images.type_ = PixelType::kFloat32;
  images.values_ = std::move(values);
  return images;
}

std::size_t StoredImages::count() const {
  const std::size_t values = shape_.values();
  if (values == 0) return 0;
  return (type_ == PixelType::kUint8 ? pixels_.size() : values_.size()) / values;
}

void StoredImages::normalise(std::size_t first, std::size_t count, std::span<float> out) const {
  const std::size_t values = shape_.values();
  PSBENCH_CHECK(first + count <= this->count() && out.size() == count * values)
      << "samples " << first << ".." << first + count << " of " << this->count() << " into " << out.size() << " values";
  const std::size_t offset = first * values;
  if (type_ == PixelType::kUint8) {
    normalizer_->apply(std::span<const std::uint8_t>(pixels_).subspan(offset, out.size()), out);
  } else {
    std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(offset), out.size(), out.begin());
  }
}

}  // namespace psbench::data
