#include "bench_context.hpp"

#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "common/resources.hpp"
#include "train/library_versions.hpp"

namespace psbench::bench {

std::string onednn_isa_name() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_all: return "all";
  }
  return "unknown";
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (!line.starts_with("model name")) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const std::size_t first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "unknown" : line.substr(first);
  }
  return "unknown";
}

BenchContext collect_context() {
  const char* commit = std::getenv("PSBENCH_GIT_COMMIT");
  return {host_name(),
          online_cores(),
          cpu_model_name(),
          onednn_isa_name(),
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
