#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/bulk_memory.hpp"
#include "data/load_modes.hpp"
#include "data/loader.hpp"
#include "data/partition.hpp"
#include "data/split_file.hpp"
#include "mpi/communicator.hpp"

namespace psbench::data {

/// A reader's partition with the images still in the file's stored type (no normalisation).
struct RawPartition {
  SplitInfo info;                            ///< what the split holds
  SampleRange range;                         ///< this reader's samples
  BulkVector<std::uint8_t> pixels;           ///< uint8 files: range.count x C x H x W, else empty
  BulkVector<float> values;                  ///< float32 files: range.count x C x H x W, else empty
  std::vector<std::int32_t> labels;          ///< range.count labels, checked to lie in [0, num_classes)
  LoadTiming timing;                         ///< what the read cost
  double read_start = 0.0;                   ///< monotonic_seconds() when the read began (comparable within one node)
  std::string transfer;                      ///< parallel mode: what HDF5 did, e.g. "chunk-collective"; else "serial"
  BulkVector<std::uint8_t> scratch;          ///< whole mode: the block passing through (kept for reuse)
  std::vector<std::int32_t> scratch_labels;  ///< whole mode: that block's labels (kept for reuse)
};

/// The MPI-IO mode load_partition uses: independent (see MpiIoMode and docs/data.md for the measurements).
inline constexpr MpiIoMode kDefaultMpiIo = MpiIoMode::kIndependent;

/// Collective over readers: what load_partition does, keeping the scratch buffers and the read's details
/// (transfer, start time) for tools and benchmarks; mpi_io applies to parallel mode.
RawPartition read_partition(const mpi::Communicator& readers, const LoadOptions& options,
                            MpiIoMode mpi_io = kDefaultMpiIo);

/// As read_partition, refilling raw and reusing the memory its vectors already hold, so that repeated reads
/// (benchmarks) measure I/O rather than first-touch page faults on fresh buffers.
void read_partition_into(const mpi::Communicator& readers, const LoadOptions& options, RawPartition& raw,
                         MpiIoMode mpi_io = kDefaultMpiIo);

/// Reads a whole split on this process alone (serial driver), checking the labels and float32 images.
RawPartition read_whole_split(const std::string& path, const std::string& split);

/// The samples of a raw partition: its images and labels moved (no conversion), its scratch buffers freed.
Samples to_samples(RawPartition&& raw);

}  // namespace psbench::data
