#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/communicator.hpp"

namespace psbench::data {

/// How workers reach the file: one after another with the serial driver, or all at once with MPI-IO.
enum class IoMode { kSequential, kParallel };
/// How much each worker reads: the whole training set (as CNTK did), or only its own partition.
enum class ReadMode { kWhole, kPartition };

/// What a worker asks the loader for.
struct LoadOptions {
  std::string path;                  ///< HDF5 file in DESIGN.md's layout
  std::string split = "train";       ///< "train" or "test"
  IoMode io = IoMode::kSequential;   ///< one after another, or all at once
  ReadMode read = ReadMode::kWhole;  ///< whole set, or own partition only
  bool cold_cache = false;           ///< drop the file's cached pages right before this reader's read
};

/// Shape of one sample (channels x height x width).
struct SampleShape {
  int channels = 0;  ///< C
  int height = 0;    ///< H
  int width = 0;     ///< W
  /// Values per sample, C*H*W.
  [[nodiscard]] std::size_t values() const {
    return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
  }
};

/// A worker's samples, normalised to float32 with the file's per-channel mean and standard deviation.
struct Samples {
  SampleShape shape;                 ///< shape of one sample
  int num_classes = 0;               ///< labels lie in [0, num_classes)
  std::uint64_t total_samples = 0;   ///< samples in the whole split of the file
  std::uint64_t first_index = 0;     ///< index in the split of this worker's first sample
  std::vector<float> images;         ///< count() x shape.values(), row-major NCHW
  std::vector<std::int32_t> labels;  ///< count() labels
  /// Number of samples held.
  [[nodiscard]] std::size_t count() const { return labels.size(); }
};

/// What one reader's load cost.
struct LoadTiming {
  std::uint64_t bytes_read = 0;  ///< bytes this reader read from the file
  double read_seconds = 0.0;     ///< time inside the read itself (open to close)
  double wait_seconds = 0.0;     ///< time waiting for the token (sequential) before reading
  double megabytes_per_s = 0.0;  ///< bytes_read / read_seconds / 1e6
  std::string mode;              ///< e.g. "sequential+whole" or "parallel+partition"
  bool collective = false;       ///< parallel mode: HDF5 reported a collective transfer
};

/// A worker's samples and what loading them cost.
struct LoadResult {
  Samples samples;    ///< this worker's partition
  LoadTiming timing;  ///< bytes and seconds of this worker's read
};

/// Collective over readers: every reader gets its contiguous, balanced partition of the split
/// (partition i of readers.size()). Throws UserError naming the file and the problem on bad input.
LoadResult load_partition(const mpi::Communicator& readers, const LoadOptions& options);

/// Reads a whole split of the file on this process alone (serial driver), e.g. the test set.
Samples load_split(const std::string& path, const std::string& split);

}  // namespace psbench::data
