#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace psbench::bench {

/// Where a benchmark's figures came from: recorded in every results/bench/*.json file.
struct BenchContext {
  std::string host;             ///< host name of the reporting rank
  int cores = 0;                ///< online cores of that host
  std::string cpu;              ///< CPU model name (psbench::cpu_model_name(), from /proc/cpuinfo)
  std::uint64_t llc_bytes = 0;  ///< the last-level cache CPU 0 shares (psbench::last_level_cache_bytes()), 0: unknown
  std::string onednn_isa;       ///< ISA oneDNN dispatches to on this host (nn::onednn_isa(): avx2, ...)
  nlohmann::json libraries;     ///< psbench, mpi, hdf5 and onednn versions read at run time
  std::string git_commit;       ///< PSBENCH_GIT_COMMIT from the environment (bench/run_all.sh sets it), or "unknown"
};

/// The context of this process's host.
BenchContext collect_context();

/// The context as the server-saturation JSON's "context" object (with "date", ISO-8601 UTC, now).
nlohmann::json context_json(const BenchContext& context);

/// Adds the psbench_* keys of docs/benchmarks.md to Google Benchmark's context (call before running).
void add_benchmark_context(const BenchContext& context);

}  // namespace psbench::bench
