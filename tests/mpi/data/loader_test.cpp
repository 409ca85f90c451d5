#include "data/loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "data/load_modes.hpp"
#include "data/raw_partition.hpp"
#include "data_fixtures.hpp"
#include "mpi/collective_error.hpp"
#include "mpi/communicator.hpp"

namespace psbench::data {
namespace {

using mpi::Communicator;
using mpi::ReduceOp;

const Communicator& world() {
  static const Communicator comm = Communicator::world();
  return comm;
}

// A folder made by rank 0 and known to every rank, removed by rank 0 after the test.
class SharedDir {
 public:
  SharedDir() {
    if (world().rank() == 0) {
      dir_ = std::make_unique<fixtures::TempDir>("loader");
      path_ = dir_->path();
    }
    world().broadcast(path_, 0);
  }
  SharedDir(const SharedDir&) = delete;
  SharedDir& operator=(const SharedDir&) = delete;
  ~SharedDir() { world().barrier(); }  // nobody still reads when rank 0 removes the folder
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::unique_ptr<fixtures::TempDir> dir_;
  std::string path_;
};

// Rank 0 writes a synthetic file; every rank returns once it exists.
std::string shared_synth(const SharedDir& dir, const std::string& name, std::uint64_t train,
                         PixelType type = PixelType::kUint8) {
  const std::string path = dir.file(name);
  if (world().rank() == 0) fixtures::write_small_synth(path, train, 3, type);
  world().barrier();
  return path;
}

LoadOptions options_for(const std::string& path, IoMode io, ReadMode read, bool cold_cache = false) {
  return LoadOptions{path, "train", io, read, cold_cache};
}

// 37 samples: partitions of 37, 18/19, 13/12/12, 10/9/9/9 at 1..4 ranks.
constexpr std::uint64_t kSamples = 37;

TEST(LoadPartition, PartitionsAreContiguousBalancedAndCoverEverySampleOnce) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "cover.h5", kSamples);
  const LoadResult result = load_partition(world(), options_for(path, IoMode::kParallel, ReadMode::kPartition));
  const Samples& samples = result.samples;
  EXPECT_EQ(samples.total_samples, kSamples);
  const std::uint64_t mine[2] = {samples.first_index, samples.count()};
  const auto all = world().gather(std::span<const std::uint64_t>(mine, 2), 0);
  if (world().rank() == 0) {
    std::uint64_t next = 0;
    for (int r = 0; r < world().size(); ++r) {
      EXPECT_EQ(all[2 * r], next) << "rank " << r << " does not start where rank " << r - 1 << " ends";
      EXPECT_GE(all[2 * r + 1], kSamples / world().size());
      EXPECT_LE(all[2 * r + 1], kSamples / world().size() + 1);
      next += all[2 * r + 1];
    }
    EXPECT_EQ(next, kSamples);
  }
  EXPECT_EQ(samples.images.count(), samples.count());
  EXPECT_EQ(samples.images.stored_bytes(), samples.count() * samples.shape.values()) << "uint8 stays uint8";
  EXPECT_EQ(samples.num_classes, 5);
}

TEST(LoadPartition, EveryModeReturnsTheSameBytesAsASerialReadOfTheSplit) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "modes.h5", kSamples);
  const Samples whole = load_split(path, "train");
  const SampleRange mine = partition_range(kSamples, world().size(), world().rank());
  const std::size_t values = whole.shape.values();
  const std::vector<float> all_images = fixtures::normalised_images(whole);
  const std::vector<float> expected_images(all_images.begin() + static_cast<std::ptrdiff_t>(mine.first * values),
                                           all_images.begin() + static_cast<std::ptrdiff_t>(mine.end() * values));
  const std::vector<std::int32_t> expected_labels(whole.labels.begin() + static_cast<std::ptrdiff_t>(mine.first),
                                                  whole.labels.begin() + static_cast<std::ptrdiff_t>(mine.end()));
  for (const auto io : {IoMode::kSequential, IoMode::kParallel}) {
    for (const auto read : {ReadMode::kWhole, ReadMode::kPartition}) {
      const LoadResult result = load_partition(world(), options_for(path, io, read, read == ReadMode::kWhole));
      const std::string mode = mode_name(io, read);
      EXPECT_EQ(result.timing.mode, mode);
      EXPECT_EQ(result.samples.first_index, mine.first) << mode;
      EXPECT_EQ(fixtures::normalised_images(result.samples), expected_images) << mode;
      EXPECT_EQ(result.samples.labels, expected_labels) << mode;
      EXPECT_GT(result.timing.read_seconds, 0.0) << mode;
      EXPECT_GT(result.timing.megabytes_per_s, 0.0) << mode;
      if (io == IoMode::kParallel) {
        EXPECT_TRUE(result.timing.collective) << mode << ": HDF5 fell back to independent I/O";
        EXPECT_EQ(result.timing.wait_seconds, 0.0) << mode;
      } else {
        EXPECT_FALSE(result.timing.collective) << mode;
      }
    }
  }
  const RawPartition two_phase =
      read_partition(world(), options_for(path, IoMode::kParallel, ReadMode::kPartition), MpiIoMode::kTwoPhase);
  EXPECT_EQ(two_phase.labels, expected_labels);
  EXPECT_NE(two_phase.transfer.find("two-phase MPI-IO"), std::string::npos) << two_phase.transfer;
  EXPECT_TRUE(two_phase.timing.collective);
}

TEST(LoadPartition, WholeModeReadsTheWholeSplitOnEveryReader) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "whole.h5", kSamples);
  // Stored bytes of the split: 12 uint8 pixels and one uint8 label per sample.
  constexpr std::uint64_t kSplitBytes = kSamples * (12 + 1);
  for (const auto io : {IoMode::kSequential, IoMode::kParallel}) {
    const LoadResult whole = load_partition(world(), options_for(path, io, ReadMode::kWhole));
    EXPECT_EQ(whole.timing.bytes_read, kSplitBytes) << io_mode_name(io);
    const LoadResult own = load_partition(world(), options_for(path, io, ReadMode::kPartition));
    EXPECT_EQ(own.timing.bytes_read, own.samples.count() * 13) << io_mode_name(io);
    EXPECT_EQ(world().allreduce(own.timing.bytes_read, ReduceOp::kSum), kSplitBytes);
  }
}

TEST(LoadPartition, SequentialReadersTakeTurnsInRankOrder) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "turns.h5", kSamples);
  const RawPartition raw = read_partition(world(), options_for(path, IoMode::kSequential, ReadMode::kWhole));
  // The ranks share this node's monotonic clock: no read may start before the previous rank's has ended.
  const double mine[2] = {raw.read_start, raw.read_start + raw.timing.read_seconds};
  const auto all = world().gather(std::span<const double>(mine, 2), 0);
  for (int r = 1; r < static_cast<int>(all.size()) / 2; ++r) {
    EXPECT_GE(all[2 * r], all[2 * r - 1]) << "rank " << r << " read while rank " << r - 1 << " still did";
  }
  if (world().rank() == 0) {
    EXPECT_EQ(raw.timing.wait_seconds, 0.0);
  }
}

TEST(LoadPartition, Float32FilesLoadAsStored) {
  const SharedDir dir;
  const std::string u8 = shared_synth(dir, "u8.h5", kSamples);
  const std::string f32 = shared_synth(dir, "f32.h5", kSamples, PixelType::kFloat32);
  const LoadResult a = load_partition(world(), options_for(u8, IoMode::kParallel, ReadMode::kPartition));
  const LoadResult b = load_partition(world(), options_for(f32, IoMode::kParallel, ReadMode::kPartition));
  EXPECT_EQ(fixtures::normalised_images(a.samples), fixtures::normalised_images(b.samples));
  EXPECT_EQ(b.samples.images.type(), PixelType::kFloat32);
  EXPECT_EQ(b.timing.bytes_read, b.samples.count() * (12 * 4 + 1));
}

TEST(LoadPartition, WorksOnASubCommunicator) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "sub.h5", kSamples);
  const Communicator readers = world().split(world().rank() == 0 && world().size() > 1 ? 0 : 1, world().rank());
  const LoadResult result = load_partition(readers, options_for(path, IoMode::kSequential, ReadMode::kPartition));
  EXPECT_EQ(result.samples.first_index, partition_range(kSamples, readers.size(), readers.rank()).first);
}

// Every rank must see the same CollectiveUserError naming the file and the problem: none hangs.
void expect_collective_error(const LoadOptions& options, const std::string& expected) {
  try {
    load_partition(world(), options);
    ADD_FAILURE() << "no error for " << options.path;
  } catch (const mpi::CollectiveUserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_NE(message.find(options.path), std::string::npos) << message;
  }
}

TEST(LoadPartition, BadInputIsOneErrorOnEveryRank) {
  const SharedDir dir;
  for (const auto io : {IoMode::kSequential, IoMode::kParallel}) {
    expect_collective_error(options_for(dir.file("absent.h5"), io, ReadMode::kPartition), "no such file");
    const std::string bad_label = dir.file("bad_label.h5");
    if (world().rank() == 0) fixtures::write_defective_file(bad_label, fixtures::Defect::kLabelOutOfRange);
    world().barrier();
    // Only the last reader holds the bad label in partition mode; the error still reaches everyone.
    expect_collective_error(options_for(bad_label, io, ReadMode::kPartition), "/train/labels[9] is 5");
  }
}

TEST(LoadPartition, ASampleWithNaNIsOneErrorNamingItOnEveryRank) {
  const SharedDir dir;
  // 40 samples, NaN from sample 31 on: in partition mode at 2-4 ranks only the last reader holds them.
  const std::string path = dir.file("nan.h5");
  if (world().rank() == 0) fixtures::write_non_finite_file(path, 40, 31);
  world().barrier();
  for (const auto io : {IoMode::kSequential, IoMode::kParallel}) {
    for (const auto read : {ReadMode::kWhole, ReadMode::kPartition}) {
      expect_collective_error(options_for(path, io, read), "/train/images[31] (sample 31) holds NaN");
    }
  }
  EXPECT_THROW(load_split(path, "train"), UserError);
  EXPECT_EQ(load_split(path, "test").count(), 10U) << "the test split is finite";
}

TEST(LoadPartition, MoreWorkersThanSamplesIsOneErrorOnEveryRank) {
  const SharedDir dir;
  const std::string path = shared_synth(dir, "one.h5", 1);
  if (world().size() == 1) {
    EXPECT_EQ(load_partition(world(), options_for(path, IoMode::kParallel, ReadMode::kPartition)).samples.count(), 1U);
    return;
  }
  for (const auto io : {IoMode::kSequential, IoMode::kParallel}) {
    expect_collective_error(options_for(path, io, ReadMode::kPartition),
                            "holds 1 samples, fewer than the " + std::to_string(world().size()) + " workers");
  }
}

}  // namespace
}  // namespace psbench::data
