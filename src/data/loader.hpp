#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/thread_usage.hpp"
#include "data/sample_shape.hpp"
#include "data/stored_images.hpp"
#include "mpi/communicator.hpp"

namespace psbench::data {

/// How workers reach the file: one after another with the serial driver, or all at once with MPI-IO.
enum class IoMode { kSequential, kParallel };
/// How much each worker reads: the whole training set (as CNTK did), or only its own partition.
enum class ReadMode { kWhole, kPartition };

/// What a worker asks the loader for.
struct LoadOptions {
  std::string path;                  ///< HDF5 file in psbench's layout (docs/data.md)
  std::string split = "train";       ///< "train" or "test"
  IoMode io = IoMode::kSequential;   ///< one after another, or all at once
  ReadMode read = ReadMode::kWhole;  ///< whole set, or own partition only
  bool cold_cache = false;           ///< drop the file's cached pages right before this reader's read
};

/// A worker's samples, images in the file's stored type: images.normalise() gives the model's float32 input
/// (uint8 through the file's per-channel mean and standard deviation, float32 as stored).
struct Samples {
  SampleShape shape;                 ///< shape of one sample
  int num_classes = 0;               ///< labels lie in [0, num_classes)
  std::uint64_t total_samples = 0;   ///< samples in the whole split of the file
  std::uint64_t first_index = 0;     ///< index in the split of this worker's first sample
  StoredImages images;               ///< count() samples of shape.values(), row-major NCHW
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
  ThreadUsage read_usage;        ///< what the reading thread used during read_seconds: CPU, run-queue wait, faults
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
