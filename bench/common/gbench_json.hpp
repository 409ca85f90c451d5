#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_context.hpp"

namespace psbench::bench {

/// One benchmark measured by a custom MPI loop, to be written as Google Benchmark writes its runs.
struct MeasuredBenchmark {
  std::string name;                         ///< full run name, e.g. "BM_PosixRead/47185920"
  std::vector<double> seconds;              ///< wall time of each repetition (one iteration each)
  std::vector<double> cpu_seconds;          ///< the reporting rank's CPU time of each repetition
  double bytes = 0.0;                       ///< bytes moved per repetition (for bytes_per_second)
  std::map<std::string, double> constants;  ///< counters with one value for every run and aggregate
};

/// A document in Google Benchmark's JSON format (its context fields plus the psbench_* keys of
/// docs/benchmarks.md; per benchmark one "iteration" run per repetition, then the mean, median and
/// stddev aggregates), time unit microseconds, so that readers of Google Benchmark files read it too.
nlohmann::json gbench_document(const BenchContext& context, const std::string& executable,
                               const std::vector<MeasuredBenchmark>& benchmarks);

}  // namespace psbench::bench
