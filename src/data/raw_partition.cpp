#include "data/raw_partition.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>

#include "common/error.hpp"
#include "common/phase_timer.hpp"
#include "data/collective_transfer.hpp"
#include "data/finite_check.hpp"
#include "data/layout.hpp"
#include "data/load_modes.hpp"
#include "data/page_cache.hpp"
#include "data/token.hpp"
#include "mpi/collective_error.hpp"

namespace psbench::data {
namespace {

constexpr int kTokenTag = 7301;
constexpr int kDoneTag = 7302;
// Whole mode streams the split through a buffer of about this size, so memory stays bounded at any file size.
constexpr std::uint64_t kWholeBlockBytes = std::uint64_t{64} << 20;

// Remembers the first label outside [0, num_classes) among those read.
class LabelCheck {
 public:
  explicit LabelCheck(int num_classes) : num_classes_(num_classes) {}
  void check(std::span<const std::int32_t> labels, std::uint64_t first_index) {
    if (bad_) return;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] < 0 || labels[i] >= num_classes_) {
        bad_ = true;
        index_ = first_index + i;
        value_ = labels[i];
        return;
      }
    }
  }
  void throw_if_bad(const SplitInfo& info) const {
    if (bad_) throw label_out_of_range(info, index_, value_);
  }

 private:
  int num_classes_;
  bool bad_ = false;
  std::uint64_t index_ = 0;
  std::int32_t value_ = 0;
};

// Everything one reader's read needs, sized before the clock starts.
struct ReadJob {
  const LoadOptions& options;
  MpiIoMode mpi_io;
  RawPartition& raw;
  LabelCheck check;
  FiniteCheck finite;               // float32 images: the first sample holding NaN or infinity
  std::uint64_t block_samples = 0;  // whole mode: samples per block
};

std::uint64_t whole_block_samples(const SplitInfo& info) {
  std::uint64_t samples = std::max<std::uint64_t>(1, kWholeBlockBytes / info.sample_bytes());
  if (info.chunk_samples > 0 && samples > info.chunk_samples) samples -= samples % info.chunk_samples;
  return std::min(samples, info.samples);
}

void allocate(RawPartition& raw) {
  const std::size_t values = raw.range.count * raw.info.shape.values();
  if (raw.info.pixel_type == PixelType::kUint8) {
    raw.pixels.resize(values);
    raw.values.clear();
  } else {
    raw.values.resize(values);
    raw.pixels.clear();
  }
  raw.labels.resize(raw.range.count);
}

void* image_slot(RawPartition& raw, std::uint64_t sample) {
  const std::size_t offset = sample * raw.info.shape.values();
  if (raw.info.pixel_type == PixelType::kUint8) return raw.pixels.data() + offset;
  return raw.values.data() + offset;
}

std::uint64_t read_own(const SplitFile& file, ReadJob& job, CollectiveTransfer* transfer) {
  RawPartition& raw = job.raw;
  file.read(raw.range, image_slot(raw, 0), raw.labels, transfer);
  job.check.check(raw.labels, raw.range.first);
  job.finite.check(image_slot(raw, 0), raw.range.count, raw.range.first);
  return file.stored_bytes(raw.range.count);
}

// Reads every sample of the split in the same blocks on every reader (so collective reads pair up) and keeps
// this reader's partition: blocks inside it land in place, others pass through the scratch buffers.
std::uint64_t read_whole(const SplitFile& file, ReadJob& job, CollectiveTransfer* transfer) {
  RawPartition& raw = job.raw;
  const SplitInfo& info = file.info();
  const std::uint64_t sample_bytes = info.sample_bytes();
  for (std::uint64_t first = 0; first < info.samples; first += job.block_samples) {
    const SampleRange block{first, std::min(job.block_samples, info.samples - first)};
    const SampleRange kept = intersect(block, raw.range);
    const bool in_place = kept.count == block.count;
    void* images = in_place ? image_slot(raw, block.first - raw.range.first) : job.raw.scratch.data();
    const std::span<std::int32_t> labels =
        in_place ? std::span<std::int32_t>(raw.labels).subspan(block.first - raw.range.first, block.count)
                 : std::span<std::int32_t>(job.raw.scratch_labels).first(block.count);
    file.read(block, images, labels, transfer);
    job.check.check(labels, block.first);
    job.finite.check(images, block.count, block.first);
    if (!in_place && kept.count > 0) {
      std::memcpy(image_slot(raw, kept.first - raw.range.first),
                  job.raw.scratch.data() + (kept.first - block.first) * sample_bytes, kept.count * sample_bytes);
      std::copy_n(job.raw.scratch_labels.begin() + static_cast<std::ptrdiff_t>(kept.first - block.first), kept.count,
                  raw.labels.begin() + static_cast<std::ptrdiff_t>(kept.first - raw.range.first));
    }
  }
  return file.stored_bytes(info.samples);
}

std::uint64_t read_file(const SplitFile& file, ReadJob& job, CollectiveTransfer* transfer) {
  return job.options.read == ReadMode::kWhole ? read_whole(file, job, transfer) : read_own(file, job, transfer);
}

// Readers take turns in rank order: rank r reads after rank r - 1 passes the token, with the serial driver.
// Waiting readers sleep rather than spin, and all wait for the last reader's "done" the same cheap way, so
// none steals a shared core from the one reading.
std::exception_ptr read_in_turn(const mpi::Communicator& comm, ReadJob& job) {
  LoadTiming& timing = job.raw.timing;
  const int last = comm.size() - 1;
  if (comm.rank() > 0) {
    const double wait_start = monotonic_seconds();
    receive_token(comm, comm.rank() - 1, kTokenTag);
    timing.wait_seconds = monotonic_seconds() - wait_start;
  }
  std::exception_ptr failure;
  try {
    if (job.options.cold_cache) drop_cached_pages(job.options.path);
    const ThreadUsage usage_start = thread_usage();
    const double start = monotonic_seconds();
    job.raw.read_start = start;
    SplitFile file = SplitFile::open(job.options.path, job.options.split);
    timing.bytes_read = read_file(file, job, nullptr);
    file.close();
    timing.read_seconds = monotonic_seconds() - start;
    timing.read_usage = thread_usage() - usage_start;
  } catch (...) {
    failure = std::current_exception();  // still pass the token, so later readers do not hang
  }
  job.raw.transfer = "serial";
  if (comm.rank() < last) {
    send_token(comm, comm.rank() + 1, kTokenTag);
    receive_token(comm, last, kDoneTag);
  } else {
    for (int reader = 0; reader < last; ++reader) send_token(comm, reader, kDoneTag);
  }
  return failure;
}

// All readers open the file with the MPI-IO driver and read with collective transfers.
std::exception_ptr read_together(const mpi::Communicator& comm, ReadJob& job) {
  LoadTiming& timing = job.raw.timing;
  std::exception_ptr failure;
  try {
    if (job.options.cold_cache) drop_cached_pages(job.options.path);
  } catch (...) {
    failure = std::current_exception();
  }
  // Also the barrier after which every reader's pages are dropped and the clocks start together.
  if (comm.allreduce(failure ? 1 : 0, mpi::ReduceOp::kMax) != 0) return failure;
  const ThreadUsage usage_start = thread_usage();
  const double start = monotonic_seconds();
  job.raw.read_start = start;
  try {
    SplitFile file = SplitFile::open_parallel(comm, job.options.path, job.options.split);
    CollectiveTransfer transfer(job.mpi_io);
    timing.bytes_read = read_file(file, job, &transfer);
    file.close();
    timing.collective = transfer.all_collective();
    job.raw.transfer = transfer.description();
  } catch (...) {
    failure = std::current_exception();
  }
  timing.read_seconds = monotonic_seconds() - start;
  timing.read_usage = thread_usage() - usage_start;
  return failure;
}

}  // namespace

RawPartition read_partition(const mpi::Communicator& readers, const LoadOptions& options, MpiIoMode mpi_io) {
  RawPartition raw;
  read_partition_into(readers, options, raw, mpi_io);
  return raw;
}

void read_partition_into(const mpi::Communicator& readers, const LoadOptions& options, RawPartition& raw,
                         MpiIoMode mpi_io) {
  // A private communicator keeps the token messages apart from the caller's traffic.
  const mpi::Communicator comm = readers.split(0, readers.rank());
  mpi::run_collectively(comm, [&] {
    raw.info = read_split_info(options.path, options.split);
    if (raw.info.samples < static_cast<std::uint64_t>(comm.size())) {
      throw UserError("'" + options.path + "': " + layout::images_path(options.split) + " holds " +
                      std::to_string(raw.info.samples) + " samples, fewer than the " + std::to_string(comm.size()) +
                      " workers reading it (use at most " + std::to_string(raw.info.samples) +
                      " workers or a larger file)");
    }
  });
  raw.range = partition_range(raw.info.samples, comm.size(), comm.rank());
  raw.timing = LoadTiming{};
  raw.timing.mode = mode_name(options.io, options.read);
  raw.transfer.clear();
  allocate(raw);
  ReadJob job{options, mpi_io, raw, LabelCheck(raw.info.num_classes), FiniteCheck(raw.info), 0};
  if (options.read == ReadMode::kWhole) {
    job.block_samples = whole_block_samples(raw.info);
    raw.scratch.resize(job.block_samples * raw.info.sample_bytes());
    raw.scratch_labels.resize(job.block_samples);
  }
  const std::exception_ptr failure =
      options.io == IoMode::kSequential ? read_in_turn(comm, job) : read_together(comm, job);
  if (raw.timing.read_seconds > 0.0) {
    raw.timing.megabytes_per_s = static_cast<double>(raw.timing.bytes_read) / raw.timing.read_seconds / 1e6;
  }
  mpi::run_collectively(comm, [&] {
    if (failure) std::rethrow_exception(failure);
    job.check.throw_if_bad(raw.info);
    job.finite.throw_if_bad();
  });
}

RawPartition read_whole_split(const std::string& path, const std::string& split) {
  SplitFile file = SplitFile::open(path, split);
  RawPartition raw;
  raw.info = file.info();
  raw.range = {0, raw.info.samples};
  raw.timing.mode = "serial+whole";
  raw.transfer = "serial";
  allocate(raw);
  const LoadOptions options{path, split, IoMode::kSequential, ReadMode::kPartition, false};
  ReadJob job{options, kDefaultMpiIo, raw, LabelCheck(raw.info.num_classes), FiniteCheck(raw.info), 0};
  const double start = monotonic_seconds();
  raw.read_start = start;
  raw.timing.bytes_read = read_own(file, job, nullptr);
  file.close();
  raw.timing.read_seconds = monotonic_seconds() - start;
  if (raw.timing.read_seconds > 0.0) {
    raw.timing.megabytes_per_s = static_cast<double>(raw.timing.bytes_read) / raw.timing.read_seconds / 1e6;
  }
  job.check.throw_if_bad(raw.info);
  job.finite.throw_if_bad();
  return raw;
}

Samples to_samples(RawPartition&& raw) {
  Samples samples;
  samples.shape = raw.info.shape;
  samples.num_classes = raw.info.num_classes;
  samples.total_samples = raw.info.samples;
  samples.first_index = raw.range.first;
  if (raw.info.pixel_type == PixelType::kFloat32) {
    samples.images = StoredImages::from_values(raw.info.shape, std::move(raw.values));
  } else {
    samples.images = StoredImages::from_pixels(raw.info.shape, std::move(raw.pixels), raw.info.mean, raw.info.stddev);
  }
  samples.labels = std::move(raw.labels);
  BulkVector<std::uint8_t>().swap(raw.scratch);
  std::vector<std::int32_t>().swap(raw.scratch_labels);
  return samples;
}

}  // namespace psbench::data
