// I/O benchmark of the loader. Every rank runs the same repetitions of each mode (sequential+whole,
// sequential+partition, parallel+whole, parallel+partition) and of a raw POSIX read of the same file split
// the same way; rank 0 reports. A repetition's time is the max over ranks from a common barrier to each
// rank's end (first reader's start to last reader's end): the run's initial I/O time. Repetitions cycle
// through the modes so that a disturbance on this shared machine spreads over all of them.
// Run: mpiexec -n N bench_data_io FILE.h5 [--repeat R] [--warmup W] [--only TEXT] [--mpi-io independent,two-phase]
// [--warm] [--fresh-buffers] [--json OUT] [--benchmark-out OUT.json]
// --benchmark-out writes the same repetitions in Google Benchmark's JSON format under the names of
// docs/benchmarks.md (BM_PosixRead/BYTES, BM_Hdf5SerialRead/BYTES, BM_Hdf5CollectiveRead/BYTES, ...); with
// --fresh-buffers the names end in FreshBuffers, and sequential+whole adds BM_Hdf5FreshFirstRead/BYTES (rank 0,
// the chain's first reader) and BM_Hdf5FreshLaterRead/BYTES (the mean of the readers after it), BYTES one
// reader's: what a trainer's reader pays into fresh pages, launched afresh with --repeat 1 --warmup 0.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/median.hpp"
#include "common/phase_timer.hpp"
#include "data/load_modes.hpp"
#include "data/page_cache.hpp"
#include "data/partition.hpp"
#include "data/raw_partition.hpp"
#include "gbench_json.hpp"
#include "mpi/environment.hpp"

namespace {

using psbench::mpi::Communicator;
using psbench::mpi::ReduceOp;
namespace data = psbench::data;

struct Arguments {
  std::string path;
  int repeat = 3;
  int warmup = 1;
  bool cold_cache = true;
  bool fresh_buffers = false;  // every loader read into buffers of its own, first touched by that read
  std::string json;
  std::string benchmark_out;  // Google Benchmark-format JSON (data_io.json)
  std::string only;           // run only the modes whose names contain this text (and posix)
  std::vector<data::MpiIoMode> mpi_io{data::kDefaultMpiIo};
  std::size_t posix_piece = std::size_t{1} << 30;  // bytes per pread of the POSIX baseline (large is fastest)
};

// What one rank's run of a mode did.
struct RankRun {
  std::uint64_t bytes = 0;
  double read_seconds = 0.0;
  double wait_seconds = 0.0;
  bool collective = false;
  std::string transfer;
};

// What one mode did over its repetitions (max over ranks per repetition).
struct ModeResult {
  std::string name;
  std::vector<double> seconds;             // init I/O per repetition
  std::vector<double> read_seconds;        // longest single read per repetition
  std::vector<double> first_read_seconds;  // rank 0's read per repetition (sequential: the first reader's)
  std::vector<double> later_read_seconds;  // mean read of the other ranks per repetition (none with one rank)
  std::vector<double> cpu_seconds;         // rank 0's CPU time per repetition
  std::uint64_t bytes = 0;                 // summed over ranks, per repetition
  bool collective = true;
  std::string transfer;
};

// Reads this rank's contiguous share of the file's bytes with pread into buffer (kept between repetitions,
// like the loader's, so neither pays for first-touch page faults after the warm-up).
RankRun posix_read(const Communicator& world, const std::string& path, bool cold_cache, std::size_t piece_bytes,
                   std::vector<std::uint8_t>& buffer) {
  if (cold_cache) data::drop_cached_pages(path);
  const double start = psbench::monotonic_seconds();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw psbench::UserError("'" + path + "': cannot open: " + std::strerror(errno));
  struct stat info {};
  ::fstat(fd, &info);
  const data::SampleRange share =
      data::partition_range(static_cast<std::uint64_t>(info.st_size), world.size(), world.rank());
  buffer.resize(share.count);
  std::uint64_t done = 0;
  while (done < share.count) {
    const std::size_t piece = std::min<std::uint64_t>(piece_bytes, share.count - done);
    const ssize_t got = ::pread(fd, buffer.data() + done, piece, static_cast<off_t>(share.first + done));
    if (got <= 0) break;
    done += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
  return {done, psbench::monotonic_seconds() - start, 0.0, false, "posix pread"};
}

RankRun loader_read(const Communicator& world, const data::LoadOptions& options, data::MpiIoMode mpi_io,
                    data::RawPartition& raw) {
  data::read_partition_into(world, options, raw, mpi_io);
  return {raw.timing.bytes_read, raw.timing.read_seconds, raw.timing.wait_seconds, raw.timing.collective, raw.transfer};
}

// User and system CPU seconds of this process so far.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

constexpr const char* kUsage =
    "usage: bench_data_io FILE.h5 [--repeat R] [--warmup W] [--only TEXT] [--mpi-io independent,two-phase] "
    "[--warm] [--fresh-buffers] [--json OUT] [--benchmark-out OUT]";

Arguments parse(int argc, char** argv) {
  Arguments arguments;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--repeat" && i + 1 < argc) {
      arguments.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (flag == "--warmup" && i + 1 < argc) {
      arguments.warmup = std::max(0, std::atoi(argv[++i]));
    } else if (flag == "--only" && i + 1 < argc) {
      arguments.only = argv[++i];
    } else if (flag == "--mpi-io" && i + 1 < argc) {
      arguments.mpi_io.clear();
      std::string list = argv[++i];
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        arguments.mpi_io.push_back(data::parse_mpi_io_mode(list.substr(start, comma - start)));
        start = comma + 1;
      }
    } else if (flag == "--posix-piece-mib" && i + 1 < argc) {
      arguments.posix_piece = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i]))) << 20;
    } else if (flag == "--warm") {
      arguments.cold_cache = false;
    } else if (flag == "--fresh-buffers") {
      arguments.fresh_buffers = true;
    } else if (flag == "--json" && i + 1 < argc) {
      arguments.json = argv[++i];
    } else if (flag == "--benchmark-out" && i + 1 < argc) {
      arguments.benchmark_out = argv[++i];
    } else if (arguments.path.empty() && !flag.starts_with("--")) {
      arguments.path = flag;
    } else {
      throw psbench::UserError(kUsage);
    }
  }
  if (arguments.path.empty()) throw psbench::UserError(kUsage);
  return arguments;
}

// The benchmark name of a mode (docs/benchmarks.md), without its byte count.
std::string benchmark_family(const std::string& mode, bool fresh_buffers) {
  std::string family = mode.starts_with("posix")                  ? "BM_PosixRead"
                       : mode.starts_with("sequential+whole")     ? "BM_Hdf5SerialRead"
                       : mode.starts_with("sequential+partition") ? "BM_Hdf5SerialPartitionRead"
                       : mode.starts_with("parallel+whole")       ? "BM_Hdf5CollectiveWholeRead"
                                                                  : "BM_Hdf5CollectiveRead";
  if (mode.find("(two-phase)") != std::string::npos) family += "TwoPhase";
  if (mode.find("(independent)") != std::string::npos) family += "Independent";
  return fresh_buffers ? family + "FreshBuffers" : family;
}

// With fresh buffers, sequential+whole's first reader and the mean of the later ones, each under one reader's
// bytes; the later one carries vs_first, the median of the paired per-repetition ratios to the first.
void add_fresh_readers(const ModeResult& result, int ranks, std::vector<psbench::bench::MeasuredBenchmark>& out) {
  if (result.name != "sequential+whole" || result.later_read_seconds.empty()) return;
  const std::uint64_t bytes = result.bytes / static_cast<std::uint64_t>(ranks);
  const std::string suffix = "/" + std::to_string(bytes);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < result.later_read_seconds.size(); ++i)
    ratios.push_back(result.later_read_seconds[i] / result.first_read_seconds[i]);
  out.push_back({"BM_Hdf5FreshFirstRead" + suffix,
                 result.first_read_seconds,
                 result.cpu_seconds,
                 static_cast<double>(bytes),
                 {}});
  out.push_back({"BM_Hdf5FreshLaterRead" + suffix,
                 result.later_read_seconds,
                 result.cpu_seconds,
                 static_cast<double>(bytes),
                 {{"vs_first", psbench::median(ratios)}}});
}

// Writes the repetitions as Google Benchmark JSON; BM_Hdf5CollectiveRead* also carry vs_posix, the median
// of the paired per-repetition bandwidth ratios over posix.
void save_gbench(const Arguments& arguments, int ranks, const std::vector<ModeResult>& results,
                 const std::map<std::string, double>& over_posix) {
  std::vector<psbench::bench::MeasuredBenchmark> benchmarks;
  for (const auto& result : results) {
    psbench::bench::MeasuredBenchmark benchmark{
        benchmark_family(result.name, arguments.fresh_buffers) + "/" + std::to_string(result.bytes),
        result.seconds,
        result.cpu_seconds,
        static_cast<double>(result.bytes),
        {}};
    if (const auto ratio = over_posix.find(result.name); ratio != over_posix.end()) {
      benchmark.constants["vs_posix"] = ratio->second;
    }
    benchmark.constants["cold_cache"] = arguments.cold_cache ? 1.0 : 0.0;
    benchmark.constants["fresh_buffers"] = arguments.fresh_buffers ? 1.0 : 0.0;
    benchmarks.push_back(benchmark);
    if (arguments.fresh_buffers) add_fresh_readers(result, ranks, benchmarks);
  }
  const auto document = psbench::bench::gbench_document(psbench::bench::collect_context(), "bench_data_io", benchmarks);
  psbench::write_file_atomically(arguments.benchmark_out, document.dump(2) + "\n");
}

void print_and_save(const Communicator& world, const Arguments& arguments, const std::vector<ModeResult>& results,
                    double cached_after_drop) {
  if (world.rank() != 0) return;
  std::printf("file %s, %d ranks, %d repetitions, %s cache (pages still cached after a drop: %.1f%%)\n",
              arguments.path.c_str(), world.size(), arguments.repeat, arguments.cold_cache ? "cold" : "warm",
              100.0 * cached_after_drop);
  std::printf("%-34s %9s %9s %9s %9s %9s %10s %8s  %s\n", "mode", "init_io_s", "min_s", "max_s", "first_s", "longest_s",
              "MB_read", "MB/s", "transfer");
  nlohmann::json json;
  json["file"] = arguments.path;
  json["ranks"] = world.size();
  json["repetitions"] = arguments.repeat;
  json["cold_cache"] = arguments.cold_cache;
  json["fresh_buffers"] = arguments.fresh_buffers;
  json["cached_fraction_after_drop"] = cached_after_drop;
  for (const auto& result : results) {
    const double seconds = psbench::median(result.seconds);
    const double rate = static_cast<double>(result.bytes) / seconds / 1e6;
    const auto [low, high] = std::minmax_element(result.seconds.begin(), result.seconds.end());
    std::printf("%-34s %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f %8.0f  %s\n", result.name.c_str(), seconds, *low, *high,
                psbench::median(result.first_read_seconds), psbench::median(result.read_seconds),
                static_cast<double>(result.bytes) / 1e6, rate, result.transfer.c_str());
    if (result.name.starts_with("sequential") && !result.later_read_seconds.empty()) {
      std::printf("%s: later readers %.3f s each against the first's %.3f s\n", result.name.c_str(),
                  psbench::median(result.later_read_seconds), psbench::median(result.first_read_seconds));
    }
    json["modes"][result.name] = {{"init_io_seconds_median", seconds},
                                  {"init_io_seconds", result.seconds},
                                  {"longest_read_seconds", result.read_seconds},
                                  {"first_read_seconds", result.first_read_seconds},
                                  {"later_read_seconds", result.later_read_seconds},
                                  {"bytes_read", result.bytes},
                                  {"megabytes_per_s", rate},
                                  {"collective", result.collective},
                                  {"transfer", result.transfer}};
  }
  std::map<std::string, double> over_posix;
  const auto posix = std::find_if(results.begin(), results.end(), [](const auto& r) { return r.name == "posix"; });
  for (const auto& result : results) {
    if (!result.name.starts_with("parallel+partition") || posix == results.end()) continue;
    // Bandwidth over POSIX's in each repetition (the two ran back to back), then the median of those.
    std::vector<double> ratios;
    for (std::size_t i = 0; i < result.seconds.size(); ++i) {
      ratios.push_back(static_cast<double>(result.bytes) / result.seconds[i] /
                       (static_cast<double>(posix->bytes) / posix->seconds[i]));
    }
    const double paired = psbench::median(ratios);
    const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
    std::printf("%s / posix bandwidth: %.2f (median of paired repetitions, range %.2f..%.2f)\n", result.name.c_str(),
                paired, *low, *high);
    json["modes"][result.name]["over_posix"] = paired;
    over_posix[result.name] = paired;
    json["modes"][result.name]["over_posix_per_repetition"] = ratios;
  }
  if (!arguments.json.empty()) psbench::write_file_atomically(arguments.json, json.dump(2) + "\n");
  if (!arguments.benchmark_out.empty()) save_gbench(arguments, world.size(), results, over_posix);
}

void run(const Communicator& world, const Arguments& arguments) {
  struct Mode {
    std::string name;
    std::function<RankRun()> run;
  };
  std::vector<std::uint8_t> posix_buffer;
  data::RawPartition raw;  // shared by the loader's modes: its memory is touched once, in the warm-up
  // --fresh-buffers: one RawPartition per read, kept to the end, so that no read reuses pages another touched.
  std::deque<data::RawPartition> fresh;
  std::vector<Mode> modes;
  const auto add_loader_mode = [&](data::IoMode io, data::ReadMode read, data::MpiIoMode mpi_io) {
    std::string name = data::mode_name(io, read);
    if (io == data::IoMode::kParallel && mpi_io != data::kDefaultMpiIo) {
      name += " (" + std::string(data::mpi_io_name(mpi_io)) + ")";
    }
    if (name.find(arguments.only) == std::string::npos) return;
    const data::LoadOptions options{arguments.path, "train", io, read, arguments.cold_cache};
    modes.push_back({name, [&world, &raw, &fresh, &arguments, options, mpi_io] {
                       return loader_read(world, options, mpi_io, arguments.fresh_buffers ? fresh.emplace_back() : raw);
                     }});
  };
  add_loader_mode(data::IoMode::kSequential, data::ReadMode::kWhole, data::kDefaultMpiIo);
  add_loader_mode(data::IoMode::kSequential, data::ReadMode::kPartition, data::kDefaultMpiIo);
  for (const auto mpi_io : arguments.mpi_io) add_loader_mode(data::IoMode::kParallel, data::ReadMode::kWhole, mpi_io);
  // POSIX runs right before parallel+partition, so that each pair shares the machine's load of the moment.
  modes.push_back(
      {"posix",
       [&] { return posix_read(world, arguments.path, arguments.cold_cache, arguments.posix_piece, posix_buffer); }});
  for (const auto mpi_io : arguments.mpi_io) {
    add_loader_mode(data::IoMode::kParallel, data::ReadMode::kPartition, mpi_io);
  }
  std::vector<ModeResult> results(modes.size());
  for (std::size_t m = 0; m < modes.size(); ++m) results[m].name = modes[m].name;
  for (int repetition = -arguments.warmup; repetition < arguments.repeat; ++repetition) {
    for (std::size_t m = 0; m < modes.size(); ++m) {
      world.barrier();
      const double start = psbench::monotonic_seconds();
      const double cpu_start = cpu_seconds();
      const RankRun rank_run = modes[m].run();
      const double seconds = psbench::monotonic_seconds() - start;
      const double cpu = cpu_seconds() - cpu_start;
      if (repetition < 0) continue;  // warm-up: touches the buffers, loads the libraries' code
      ModeResult& result = results[m];
      result.seconds.push_back(world.allreduce(seconds, ReduceOp::kMax));
      result.read_seconds.push_back(world.allreduce(rank_run.read_seconds, ReduceOp::kMax));
      result.first_read_seconds.push_back(
          world.allreduce(world.rank() == 0 ? rank_run.read_seconds : 0.0, ReduceOp::kMax));
      if (world.size() > 1) {
        const double others = world.allreduce(world.rank() == 0 ? 0.0 : rank_run.read_seconds, ReduceOp::kSum);
        result.later_read_seconds.push_back(others / (world.size() - 1));
      }
      result.cpu_seconds.push_back(cpu);
      result.bytes = world.allreduce(rank_run.bytes, ReduceOp::kSum);
      result.collective = world.allreduce(rank_run.collective ? 1 : 0, ReduceOp::kMin) != 0;
      result.transfer = rank_run.transfer;
    }
  }
  double cached = 0.0;
  if (world.rank() == 0) {
    data::drop_cached_pages(arguments.path);
    cached = data::cached_fraction(arguments.path);
  }
  print_and_save(world, arguments, results, cached);
}

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  try {
    run(environment.world(), parse(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", psbench::format_error_line(error.what()).c_str());
    psbench::mpi::Environment::abort(2);
  }
  return 0;
}
