#include "bench_context.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

#include "common/resources.hpp"
#include "nn/onednn_info.hpp"
#include "train/library_versions.hpp"

namespace psbench::bench {

BenchContext collect_context() {
  const char* commit = std::getenv("PSBENCH_GIT_COMMIT");
  return {host_name(),
          online_cores(),
          cpu_model_name(),
          last_level_cache_bytes(),
          nn::onednn_isa(),
          train::library_versions(),
          commit != nullptr && *commit != '\0' ? commit : "unknown"};
}

nlohmann::json context_json(const BenchContext& context) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {{"host", context.host},
          {"cores", context.cores},
          {"cpu", context.cpu},
          {"llc_bytes", context.llc_bytes},
          {"onednn_isa", context.onednn_isa},
          {"libraries", context.libraries},
          {"git_commit", context.git_commit},
          {"date", date}};
}

void add_benchmark_context(const BenchContext& context) {
  benchmark::AddCustomContext("psbench_host", context.host);
  benchmark::AddCustomContext("psbench_cores", std::to_string(context.cores));
  benchmark::AddCustomContext("psbench_cpu", context.cpu);
  benchmark::AddCustomContext("psbench_onednn_isa", context.onednn_isa);
  benchmark::AddCustomContext("psbench_libraries", context.libraries.dump());
  benchmark::AddCustomContext("psbench_git_commit", context.git_commit);
}

}  // namespace psbench::bench
