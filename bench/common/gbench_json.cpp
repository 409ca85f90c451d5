#include "gbench_json.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>

#include "common/median.hpp"

namespace psbench::bench {
namespace {

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double stddev(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double m = mean(values);
  double sum = 0.0;
  for (const double v : values) sum += (v - m) * (v - m);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

nlohmann::json context_object(const BenchContext& context, const std::string& executable) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char date[40];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", &local);
  return {{"date", date},
          {"host_name", context.host},
          {"executable", executable},
          {"num_cpus", context.cores},
          {"library_build_type", "release"},
          {"psbench_host", context.host},
          {"psbench_cores", std::to_string(context.cores)},
          {"psbench_cpu", context.cpu},
          {"psbench_onednn_isa", context.onednn_isa},
          {"psbench_libraries", context.libraries.dump()},
          {"psbench_git_commit", context.git_commit}};
}

// One run entry; seconds and cpu_seconds are its time, bytes its bytes per repetition.
nlohmann::json run_entry(const MeasuredBenchmark& benchmark, std::size_t family, double seconds, double cpu_seconds) {
  nlohmann::json run{{"name", benchmark.name},
                     {"family_index", family},
                     {"per_family_instance_index", 0},
                     {"run_name", benchmark.name},
                     {"repetitions", benchmark.seconds.size()},
                     {"threads", 1},
                     {"iterations", 1},
                     {"real_time", 1e6 * seconds},
                     {"cpu_time", 1e6 * cpu_seconds},
                     {"time_unit", "us"}};
  if (benchmark.bytes > 0.0 && seconds > 0.0) run["bytes_per_second"] = benchmark.bytes / seconds;
  for (const auto& [key, value] : benchmark.constants) run[key] = value;
  return run;
}

}  // namespace

nlohmann::json gbench_document(const BenchContext& context, const std::string& executable,
                               const std::vector<MeasuredBenchmark>& benchmarks) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t family = 0; family < benchmarks.size(); ++family) {
    const MeasuredBenchmark& benchmark = benchmarks[family];
    for (std::size_t i = 0; i < benchmark.seconds.size(); ++i) {
      nlohmann::json run = run_entry(benchmark, family, benchmark.seconds[i], benchmark.cpu_seconds[i]);
      run["run_type"] = "iteration";
      run["repetition_index"] = i;
      runs.push_back(run);
    }
    const std::vector<std::pair<std::string, double (*)(const std::vector<double>&)>> aggregates{
        {"mean", mean}, {"median", [](const std::vector<double>& v) { return median(v); }}, {"stddev", stddev}};
    for (const auto& [aggregate, reduce] : aggregates) {
      nlohmann::json run = run_entry(benchmark, family, reduce(benchmark.seconds), reduce(benchmark.cpu_seconds));
      run["name"] = benchmark.name + "_" + aggregate;
      run["run_type"] = "aggregate";
      run["aggregate_name"] = aggregate;
      run["aggregate_unit"] = "time";
      if (aggregate == "stddev") run.erase("bytes_per_second");
      runs.push_back(run);
    }
  }
  return {{"context", context_object(context, executable)}, {"benchmarks", runs}};
}

}  // namespace psbench::bench
