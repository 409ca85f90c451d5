#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "results/json_fields.hpp"

namespace psbench::results {

/// The psbench_* custom context keys every psbench Google Benchmark binary adds (all strings in the file).
struct PsbenchContext {
  std::string host;                              ///< psbench_host
  int cores = 0;                                 ///< psbench_cores (online cores), a number as text
  std::string cpu;                               ///< psbench_cpu: CPU model name
  std::string onednn_isa;                        ///< psbench_onednn_isa: ISA oneDNN dispatched to
  std::map<std::string, std::string> libraries;  ///< psbench_libraries: a JSON object as text
  std::string git_commit;                        ///< psbench_git_commit
  /// Member-wise equality.
  bool operator==(const PsbenchContext&) const = default;
};

/// The `context` object of a Google Benchmark JSON file: Google Benchmark's own keys and psbench's.
struct BenchmarkContext {
  std::string date;        ///< when it ran
  std::string host_name;   ///< host
  std::string executable;  ///< the benchmark binary
  int num_cpus = 0;        ///< CPUs Google Benchmark saw
  std::optional<double>
      mhz_per_cpu;  ///< nominal clock, where the writer knows it (psbench's custom MPI benchmarks do not)
  std::string library_build_type;  ///< release | debug (of Google Benchmark itself)
  PsbenchContext psbench;          ///< the psbench_* keys
  /// Member-wise equality.
  bool operator==(const BenchmarkContext&) const = default;
};

/// One entry of `benchmarks`: a run (run_type iteration) or an aggregate of repetitions (run_type aggregate).
struct BenchmarkRun {
  std::string name;                        ///< e.g. BM_PushPull/path:0/2143272
  std::string run_name;                    ///< the name without aggregate suffix (defaults to name)
  std::string run_type;                    ///< iteration | aggregate
  std::string aggregate_name;              ///< mean, median, stddev, cv (aggregates only; else empty)
  std::int64_t threads = 1;                ///< threads of the run
  std::int64_t iterations = 0;             ///< iterations timed
  double real_time = 0.0;                  ///< wall time per iteration, in time_unit
  double cpu_time = 0.0;                   ///< CPU time per iteration, in time_unit
  std::string time_unit;                   ///< ns | us | ms | s
  std::string error_message;               ///< set when the benchmark reported an error
  std::map<std::string, double> counters;  ///< every other numeric key (user counters such as FLOP/s)
  /// Member-wise equality.
  bool operator==(const BenchmarkRun&) const = default;
};

/// A Google Benchmark JSON file (`--benchmark_out_format=json`) of a psbench benchmark binary.
struct GoogleBenchmarkFile {
  BenchmarkContext context;              ///< where and how it ran
  std::vector<BenchmarkRun> benchmarks;  ///< runs and aggregates in file order
  /// Member-wise equality.
  bool operator==(const GoogleBenchmarkFile&) const = default;
};

/// The server_saturation file's format this psbench reads and writes. Keys added since are optional (std::optional
/// members): a reader treats a missing one as documented there, so the number stays 1 (docs/formats.md, "Bench file").
inline constexpr int kSaturationFormat = 1;

/// The `context` of server_saturation.json.
struct SaturationContext {
  std::string host;                              ///< host name
  int cores = 0;                                 ///< online cores
  std::string cpu;                               ///< CPU model name
  std::string onednn_isa;                        ///< ISA oneDNN dispatched to
  std::map<std::string, std::string> libraries;  ///< psbench, mpi, hdf5, onednn versions
  std::string git_commit;                        ///< commit of the benchmark
  std::string date;                              ///< ISO-8601
  std::optional<std::uint64_t> llc_bytes{};      ///< the last-level cache the cores share (optional: older format-1 files lack it)
  /// Member-wise equality.
  bool operator==(const SaturationContext&) const = default;
};

/// One measured point of a saturation curve: k clients against the servers.
struct SaturationPoint {
  int clients = 0;                        ///< k
  double updates_per_s = 0.0;             ///< full pushes per second (all shards)
  double utilization = 0.0;               ///< busy fraction of the busiest server
  double response_us = 0.0;               ///< push to fresh shard, as the client sees it
  double queue_length = 0.0;              ///< mean queue length
  std::optional<double> service_us{};     ///< the servers' mean time per update, by their clock (optional)
  std::optional<double> server_cpu_us{};  ///< the servers' CPU time per update, kernel included (optional)
  /// Member-wise equality.
  bool operator==(const SaturationPoint&) const = default;
};

/// One saturation curve at a server count.
struct SaturationRun {
  int servers = 0;                             ///< S
  std::uint64_t parameters = 0;                ///< P
  double think_us = 0.0;                       ///< Z: each client's emulated compute, as asked for
  double service_us = 0.0;                     ///< D: mean service time per update per server at k = 1
  double service_cv = 0.0;                     ///< coefficient of variation of D at k = 1
  int knee_clients = 0;                        ///< measured knee
  double knee_model = 0.0;                     ///< (Z + D) / D
  std::vector<SaturationPoint> points;         ///< k = 1, 2, ...
  std::optional<double> think_measured_us;     ///< the mean sleep the clients measured (a sleep overshoots)
  std::optional<double> service_busy_us{};     ///< D kept busy: busy_clients clients and no think time
  std::optional<int> busy_clients{};           ///< the clients of that probe (optional: absent means 1)
  std::optional<double> busy_updates_per_s{};  ///< the throughput of that probe (optional: older format-1 files lack it)
  std::optional<double> client_cpu_us{};       ///< a client's CPU time per exchange at k = 1 (kernel included)
  std::optional<double> server_cpu_busy_us{};  ///< a server's CPU time per update in the busy probe (kernel included)
  std::optional<double> window_huge_pages{};   ///< shared path: share of the server's mapping in 2 MiB pages
  /// Member-wise equality.
  bool operator==(const SaturationRun&) const = default;
};

/// bench_server_saturation's own JSON file (docs/formats.md, "Bench file").
struct SaturationFile {
  int format = kSaturationFormat;               ///< file format version
  std::string benchmark = "server_saturation";  ///< always server_saturation
  SaturationContext context;                    ///< where it ran
  std::string note;                             ///< how compute was emulated
  std::vector<SaturationRun> runs;              ///< one curve per server count
  /// Member-wise equality.
  bool operator==(const SaturationFile&) const = default;
};

/// Any benchmark file under results/bench/.
using BenchFile = std::variant<GoogleBenchmarkFile, SaturationFile>;

/// Writes the psbench_* keys (as strings) into a context object.
void to_json(Json& out, const PsbenchContext& value);
/// Reads the psbench_* keys of a context object (cores and libraries parsed from their text).
void from_json(const Json& in, PsbenchContext& value);
/// Writes a Google Benchmark context.
void to_json(Json& out, const BenchmarkContext& value);
/// Reads a Google Benchmark context (extra keys such as caches are ignored).
void from_json(const Json& in, BenchmarkContext& value);
/// Writes a benchmark entry, counters as top-level keys as Google Benchmark does.
void to_json(Json& out, const BenchmarkRun& value);
/// Reads a benchmark entry; numeric keys that are not Google Benchmark's own become counters.
void from_json(const Json& in, BenchmarkRun& value);
/// Writes a Google Benchmark file.
void to_json(Json& out, const GoogleBenchmarkFile& value);
/// Reads a Google Benchmark file.
void from_json(const Json& in, GoogleBenchmarkFile& value);
/// Writes a saturation context.
void to_json(Json& out, const SaturationContext& value);
/// Reads a saturation context.
void from_json(const Json& in, SaturationContext& value);
/// Writes a saturation point.
void to_json(Json& out, const SaturationPoint& value);
/// Reads a saturation point.
void from_json(const Json& in, SaturationPoint& value);
/// Writes a saturation run.
void to_json(Json& out, const SaturationRun& value);
/// Reads a saturation run.
void from_json(const Json& in, SaturationRun& value);
/// Writes a saturation file.
void to_json(Json& out, const SaturationFile& value);
/// Reads a saturation file; a format other than kSaturationFormat throws SchemaError at key `format`.
void from_json(const Json& in, SaturationFile& value);

/// A run's real_time in seconds, whatever its time_unit.
double real_time_seconds(const BenchmarkRun& run);

}  // namespace psbench::results
