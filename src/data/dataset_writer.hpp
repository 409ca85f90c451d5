#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/hdf5_handle.hpp"
#include "data/layout.hpp"
#include "data/loader.hpp"
#include "data/split_file.hpp"

namespace psbench::data {

/// What a psbench file holds besides its samples.
struct DatasetDescription {
  SampleShape shape;                                       ///< C x H x W of one sample
  int num_classes = 0;                                     ///< labels lie in [0, num_classes)
  std::vector<std::string> class_names;                    ///< one name per class
  std::string source;                                      ///< where the data came from
  PixelType pixel_type = PixelType::kUint8;                ///< stored image type
  std::uint64_t chunk_bytes = layout::kDefaultChunkBytes;  ///< target bytes per images chunk (whole samples)
};

/// Writes a file in psbench's HDF5 layout (docs/data.md) under a temporary name; commit() flushes it to disk and renames it
/// into place, and a writer destroyed before commit() removes the temporary, so no partial .h5 is visible.
class DatasetWriter {
 public:
  /// Starts writing path (through a temporary beside it); throws UserError if the folder is not writable.
  DatasetWriter(std::string path, DatasetDescription description);
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~DatasetWriter();

  /// Creates a split's images (chunks of whole samples) and labels, to be filled by append() in order.
  void begin_split(std::string_view split, std::uint64_t samples);
  /// Appends labels.size() samples to the current split: images in the stored type, labels in range.
  void append(const void* images, std::span<const std::int32_t> labels);
  /// Sets the per-channel mean and standard deviation of pixel / 255 (required before commit()).
  void set_statistics(std::span<const double> mean, std::span<const double> stddev);
  /// Checks that every split is full, writes the attributes, flushes to disk and renames into place.
  void commit();
  /// Samples per images chunk for a split of that many samples.
  [[nodiscard]] std::uint64_t chunk_samples(std::uint64_t samples) const;

 private:
  void finish_split();

  std::string path_;
  std::string temporary_;
  DatasetDescription description_;
  File file_;
  Group group_;
  Dataset images_;
  Dataset labels_;
  std::string split_;
  std::uint64_t capacity_ = 0;
  std::uint64_t written_ = 0;
  std::vector<double> mean_;
  std::vector<double> stddev_;
  std::vector<std::uint8_t> label_bytes_;
  bool committed_ = false;
};

}  // namespace psbench::data
