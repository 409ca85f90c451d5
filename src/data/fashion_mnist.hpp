#pragma once

#include <cstdint>
#include <string>

#include "data/layout.hpp"
#include "data/split_file.hpp"

namespace psbench::data {

/// Where the Debian package dataset-fashion-mnist installs the IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

/// What `psbench data convert` does.
struct ConvertOptions {
  std::string from = kFashionMnistDir;                     ///< folder with the four gzip IDX files
  std::string out;                                         ///< the .h5 to write
  PixelType pixel_type = PixelType::kUint8;                ///< uint8 pixels, or normalised float32
  std::uint64_t limit = 0;                                 ///< keep only the first samples of each split (0: all)
  std::uint64_t chunk_bytes = layout::kDefaultChunkBytes;  ///< target bytes per images chunk
};

/// What a conversion wrote.
struct ConvertSummary {
  std::uint64_t train_samples = 0;  ///< samples in /train
  std::uint64_t test_samples = 0;   ///< samples in /test
};

/// Reads Fashion-MNIST's IDX files (validating magic numbers, 28 x 28 images, equal counts, labels below 10)
/// and writes psbench's HDF5 layout (docs/data.md) with mean and std of the training pixels. Throws UserError on bad input.
ConvertSummary convert_fashion_mnist(const ConvertOptions& options);

}  // namespace psbench::data
