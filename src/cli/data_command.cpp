#include "cli/data_command.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/first_rank.hpp"
#include "common/phase_timer.hpp"
#include "data/fashion_mnist.hpp"
#include "data/inspect.hpp"
#include "data/load_modes.hpp"
#include "data/raw_partition.hpp"
#include "data/synthetic.hpp"
#include "mpi/collective_error.hpp"
#include "mpi/communicator.hpp"

namespace psbench::cli {
namespace {

constexpr std::uint64_t kKibibyte = 1024;
constexpr std::uint64_t kTestShare = 6;  // default test split: a sixth of the training samples, as Fashion-MNIST

struct ConvertFlags {
  data::ConvertOptions options;
  std::string dtype = "uint8";
  std::uint64_t chunk_kib = data::layout::kDefaultChunkBytes / kKibibyte;
};

void add_convert(CLI::App& data) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* command = data.add_subcommand("convert", "Convert Fashion-MNIST's gzip IDX files to psbench's HDF5 layout");
  command->add_option("--from", flags->options.from, "folder with the four IDX files")->capture_default_str();
  command->add_option("--out", flags->options.out, "HDF5 file to write (atomically)")->required();
  command->add_option("--dtype", flags->dtype, "stored images: uint8 (raw pixels) or float32 (normalised)")
      ->capture_default_str();
  command->add_option("--limit", flags->options.limit, "keep only the first N samples of each split (0: all)")
      ->capture_default_str();
  command->add_option("--chunk-kib", flags->chunk_kib, "target KiB per images chunk (whole samples)")
      ->capture_default_str();
  command->callback([flags] {
    on_first_rank([&] {
      flags->options.pixel_type = data::parse_pixel_type(flags->dtype, "--dtype");
      flags->options.chunk_bytes = flags->chunk_kib * kKibibyte;
      const auto summary = data::convert_fashion_mnist(flags->options);
      std::printf("wrote %s: %llu training and %llu test samples\n", flags->options.out.c_str(),
                  static_cast<unsigned long long>(summary.train_samples),
                  static_cast<unsigned long long>(summary.test_samples));
    });
  });
}

struct SynthFlags {
  data::SynthOptions options;
  std::string shape;
  std::string dtype = "uint8";
  std::string out;
  std::uint64_t chunk_kib = data::layout::kDefaultChunkBytes / kKibibyte;
};

void add_synth(CLI::App& data) {
  auto flags = std::make_shared<SynthFlags>();
  CLI::App* command =
      data.add_subcommand("synth", "Write a deterministic, learnable synthetic set of any size (bounded memory)");
  command->add_option("--samples", flags->options.train_samples, "training samples")->required();
  command->add_option("--test-samples", flags->options.test_samples, "test samples (default: samples / 6, at least 1)");
  command->add_option("--shape", flags->shape, "sample shape C,H,W, e.g. 1,28,28")->required();
  command->add_option("--classes", flags->options.num_classes, "number of classes K (>= 2)")->required();
  command->add_option("--out", flags->out, "HDF5 file to write (atomically)")->required();
  command->add_option("--seed", flags->options.seed, "seed: the same seed gives the same bytes")->capture_default_str();
  command->add_option("--dtype", flags->dtype, "stored images: uint8 or float32 (normalised)")->capture_default_str();
  command->add_option("--chunk-kib", flags->chunk_kib, "target KiB per images chunk (whole samples)")
      ->capture_default_str();
  command->callback([flags] {
    on_first_rank([&] {
      auto& options = flags->options;
      options.shape = data::parse_shape(flags->shape, "--shape");
      options.pixel_type = data::parse_pixel_type(flags->dtype, "--dtype");
      options.chunk_bytes = flags->chunk_kib * kKibibyte;
      if (options.test_samples == 0)
        options.test_samples = std::max<std::uint64_t>(1, options.train_samples / kTestShare);
      data::write_synthetic(flags->out, options);
      std::printf("wrote %s: %llu training and %llu test samples of %dx%dx%d %s, %d classes, seed %llu\n",
                  flags->out.c_str(), static_cast<unsigned long long>(options.train_samples),
                  static_cast<unsigned long long>(options.test_samples), options.shape.channels, options.shape.height,
                  options.shape.width, flags->dtype.c_str(), options.num_classes,
                  static_cast<unsigned long long>(options.seed));
    });
  });
}

void add_inspect(CLI::App& data) {
  auto path = std::make_shared<std::string>();
  CLI::App* command = data.add_subcommand("inspect", "Describe an HDF5 file and check that psbench can load it");
  command->add_option("file", *path, "HDF5 file")->required();
  command->callback([path] {
    on_first_rank([&] {
      std::fputs(data::describe_file(*path).c_str(), stdout);
      std::fflush(stdout);
      std::fputs(data::check_layout(*path).c_str(), stdout);
    });
  });
}

struct LoadFlags {
  data::LoadOptions options;
  std::string io = "sequential";
  std::string read;
  std::string mpi_io = std::string(data::mpi_io_name(data::kDefaultMpiIo));
};

void report_load(const mpi::Communicator& world, const data::LoadOptions& options, const data::RawPartition& raw,
                 double seconds) {
  const double init_io = world.allreduce(seconds, mpi::ReduceOp::kMax);
  const auto all_bytes = world.allreduce(raw.timing.bytes_read, mpi::ReduceOp::kSum);
  const bool collective = world.allreduce(raw.timing.collective ? 1 : 0, mpi::ReduceOp::kMin) != 0;
  const ThreadUsage& usage = raw.timing.read_usage;
  char line[384];
  std::snprintf(line, sizeof line,
                "rank %d: samples %llu..%llu, read %.3f s (on a core %.3f s, waiting for one %.3f s, %llu page "
                "faults, %llu major), waited %.3f s, %s at %.0f MB/s",
                world.rank(), static_cast<unsigned long long>(raw.range.first),
                static_cast<unsigned long long>(raw.range.end()), raw.timing.read_seconds, usage.cpu_seconds,
                usage.runqueue_seconds, static_cast<unsigned long long>(usage.minor_faults),
                static_cast<unsigned long long>(usage.major_faults), raw.timing.wait_seconds,
                data::format_bytes(raw.timing.bytes_read).c_str(), raw.timing.megabytes_per_s);
  const auto lines = world.gather(std::string(line), 0);
  if (world.rank() != 0) return;
  const auto& info = raw.info;
  std::printf("mode: %s on %d readers, %s cache, transfer: %s", raw.timing.mode.c_str(), world.size(),
              options.cold_cache ? "cold" : "warm", raw.transfer.c_str());
  if (options.io == data::IoMode::kParallel) std::printf(" (collective: %s)", collective ? "yes" : "no");
  std::printf("\n%s: %llu samples of %dx%dx%d %s, %d classes\n", info.split.c_str(),
              static_cast<unsigned long long>(info.samples), info.shape.channels, info.shape.height, info.shape.width,
              std::string(data::pixel_type_name(info.pixel_type)).c_str(), info.num_classes);
  std::printf("init I/O: %.3f s (first reader's start to last reader's end), %.1f MB read in all, %.0f MB/s\n", init_io,
              static_cast<double>(all_bytes) / 1e6, init_io > 0 ? static_cast<double>(all_bytes) / init_io / 1e6 : 0.0);
  for (const auto& text : lines) std::printf("  %s\n", text.c_str());
}

void add_load(CLI::App& data) {
  auto flags = std::make_shared<LoadFlags>();
  CLI::App* command = data.add_subcommand(
      "load", "Run the loader on every rank (mpirun -np N psbench data load FILE) and report what the read cost");
  command->add_option("file", flags->options.path, "HDF5 file")->required();
  command->add_option("--split", flags->options.split, "train or test")->capture_default_str();
  command->add_option("--io", flags->io, "sequential (rank order, serial driver) or parallel (MPI-IO, collective)")
      ->capture_default_str();
  command->add_option("--read", flags->read, "whole or partition (default: whole if sequential, else partition)");
  command->add_flag("--cold-cache", flags->options.cold_cache, "drop the file's cached pages before each read");
  command->add_option("--mpi-io", flags->mpi_io, "parallel mode: independent (each reader its own bytes) or two-phase")
      ->capture_default_str();
  command->callback([flags] {
    const auto world = mpi::Communicator::world();
    data::LoadOptions& options = flags->options;
    data::MpiIoMode mpi_io = data::kDefaultMpiIo;
    mpi::run_collectively(world, [&] {
      options.io = data::parse_io_mode(flags->io);
      options.read = flags->read.empty() ? data::default_read_mode(options.io) : data::parse_read_mode(flags->read);
      mpi_io = data::parse_mpi_io_mode(flags->mpi_io);
    });
    world.barrier();
    const double start = monotonic_seconds();
    const data::RawPartition raw = data::read_partition(world, options, mpi_io);
    report_load(world, options, raw, monotonic_seconds() - start);
  });
}

}  // namespace

void add_data_command(CLI::App& app) {
  CLI::App* data = app.add_subcommand("data", "Make, inspect and load datasets in psbench's HDF5 layout");
  data->require_subcommand(1);
  add_convert(*data);
  add_synth(*data);
  add_inspect(*data);
  add_load(*data);
}

}  // namespace psbench::cli
