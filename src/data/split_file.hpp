#pragma once

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "data/collective_transfer.hpp"
#include "data/hdf5_handle.hpp"
#include "data/partition.hpp"
#include "data/pixel_type.hpp"
#include "data/sample_shape.hpp"
#include "mpi/communicator.hpp"

namespace psbench::data {

/// One split of a psbench file as its metadata describes it, already validated.
struct SplitInfo {
  std::string path;                          ///< the file
  std::string split;                         ///< "train" or "test"
  SampleShape shape;                         ///< C x H x W of one sample
  std::uint64_t samples = 0;                 ///< samples in the split
  PixelType pixel_type = PixelType::kUint8;  ///< stored image type
  int num_classes = 0;                       ///< labels lie in [0, num_classes)
  std::vector<double> mean;                  ///< per-channel mean of pixel / 255 (uint8 files)
  std::vector<double> stddev;                ///< per-channel standard deviation of pixel / 255 (uint8 files)
  std::uint64_t chunk_samples = 0;           ///< samples per images chunk, 0 when the dataset is contiguous
  /// Bytes of one stored sample.
  [[nodiscard]] std::uint64_t sample_bytes() const { return shape.values() * pixel_bytes(pixel_type); }
};

/// A psbench HDF5 file opened on one split's images and labels.
class SplitFile {
 public:
  /// Opens the file with the serial driver and validates the split; throws UserError naming the file and
  /// the problem (missing file, not HDF5, missing dataset, unsupported type, count mismatch, attributes).
  static SplitFile open(const std::string& path, const std::string& split);
  /// Collective over comm: opens the file with the MPI-IO driver and validates the split as open() does.
  static SplitFile open_parallel(const mpi::Communicator& comm, const std::string& path, const std::string& split);

  /// What the split holds.
  [[nodiscard]] const SplitInfo& info() const { return info_; }
  /// Reads samples range into images (range.count * sample_bytes bytes, stored type) and labels (range.count
  /// values); with a transfer, the reads are collective and every rank of the file's communicator calls it.
  void read(SampleRange range, void* images, std::span<std::int32_t> labels, CollectiveTransfer* transfer) const;
  /// Reads the images of samples range only (stored type), as read() does.
  void read_images(SampleRange range, void* images, CollectiveTransfer* transfer) const;
  /// Reads the labels of samples range only, widened to int32 (saturating), as read() does.
  void read_labels(SampleRange range, std::span<std::int32_t> labels, CollectiveTransfer* transfer) const;
  /// Bytes that read() moves from the file for count samples (images and labels as stored).
  [[nodiscard]] std::uint64_t stored_bytes(std::uint64_t count) const;
  /// Closes the datasets and the file (collective for a parallel file).
  void close();

 private:
  SplitFile() = default;
  static SplitFile open_with(const std::string& path, const std::string& split, hid_t access);

  SplitInfo info_;
  File file_;
  Dataset images_;
  Dataset labels_;
  Datatype label_type_;                        // native type of the stored labels
  hid_t image_memory_type_ = H5I_INVALID_HID;  // predefined, never closed
};

/// Throws UserError unless path names an existing, readable HDF5 file (not a directory).
void check_readable_hdf5(const std::string& path);

/// The error for label `value` at sample `index` of info's split, outside [0, num_classes).
UserError label_out_of_range(const SplitInfo& info, std::uint64_t index, std::int32_t value);

/// Validates a split without keeping the file open (serial driver).
SplitInfo read_split_info(const std::string& path, const std::string& split);

}  // namespace psbench::data
