#include "contract_reporter.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <string_view>

#include "bench_context.hpp"
#include "common/error.hpp"
#include "common/median.hpp"

namespace psbench::bench {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

// The byte count: the last argument of the run's name.
std::string bytes_of(const Run& run) {
  const std::string& args = run.run_name.args;
  const std::size_t slash = args.rfind('/');
  return slash == std::string::npos ? args : args.substr(slash + 1);
}

// Per byte count, the median time of one benchmark family: its median aggregate when it was reported,
// else the median of its iteration runs.
std::map<std::string, double> median_times(const std::vector<std::vector<Run>>& batches, const std::string& family) {
  std::map<std::string, std::vector<double>> iterations;
  std::map<std::string, double> medians;
  for (const auto& batch : batches) {
    for (const Run& run : batch) {
      if (run.run_name.function_name != family || run.error_occurred) continue;
      if (run.run_type == Run::RT_Iteration) iterations[bytes_of(run)].push_back(run.GetAdjustedRealTime());
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") {
        medians[bytes_of(run)] = run.GetAdjustedRealTime();
      }
    }
  }
  for (auto& [bytes, times] : iterations) medians.try_emplace(bytes, median(times));
  return medians;
}

}  // namespace

bool ContractReporter::ReportContext(const Context& context) {
  inner_.SetOutputStream(&GetOutputStream());
  inner_.SetErrorStream(&GetErrorStream());
  return inner_.ReportContext(context);
}

void ContractReporter::Finalize() {
  for (auto& batch : batches_) {
    for (Run& run : batch) run.run_name.time_type.clear();
  }
  const auto raw = median_times(batches_, "BM_RawMpiExchange");
  const auto update = median_times(batches_, "BM_LocalUpdate");
  for (auto& batch : batches_) {
    for (Run& run : batch) {
      if (run.run_name.function_name != "BM_PushPull" || run.error_occurred) continue;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "mean" && run.aggregate_name != "median") continue;
      const auto raw_time = raw.find(bytes_of(run));
      const auto update_time = update.find(bytes_of(run));
      if (raw_time == raw.end() || update_time == update.end()) continue;
      const double limit = std::max(raw_time->second, update_time->second);
      run.counters["limit_us"] = benchmark::Counter(limit);
      run.counters["vs_limit"] = benchmark::Counter(limit / run.GetAdjustedRealTime());
    }
    inner_.ReportRuns(batch);
  }
  inner_.Finalize();
}

bool names_output_file(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).starts_with("--benchmark_out=")) return true;
  }
  return false;
}

void drop_output_file(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg.starts_with("--benchmark_out=") || arg.starts_with("--benchmark_out_format=")) continue;
    argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
}

namespace {

// Discards results: the ranks that do not report run the same loops.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& /*runs*/) override {}
};

}  // namespace

void run_benchmarks_on_ranks(bool reporting, bool to_file) {
  if (reporting) {
    add_benchmark_context(collect_context());
    run_benchmarks(to_file);
    return;
  }
  SilentReporter silent;
  benchmark::RunSpecifiedBenchmarks(&silent);
}

int mpi_benchmark_main(const mpi::Communicator& world, int& argc, char** argv,
                       const std::function<void(int&, char**)>& take_flags,
                       const std::function<void()>& register_benchmarks) {
  try {
    take_flags(argc, argv);
  } catch (const std::exception& error) {
    if (world.rank() == 0) std::fprintf(stderr, "%s\n", format_error_line(error.what()).c_str());
    return 2;
  }
  const bool reporting = world.rank() == 0;
  if (!reporting) drop_output_file(argc, argv);
  const bool to_file = names_output_file(argc, argv);
  benchmark::Initialize(&argc, argv);
  register_benchmarks();
  run_benchmarks_on_ranks(reporting, to_file);
  benchmark::Shutdown();
  return 0;
}

void run_benchmarks(bool to_file) {
  benchmark::ConsoleReporter console;
  benchmark::JSONReporter json;
  ContractReporter display(console);
  ContractReporter file(json);
  benchmark::RunSpecifiedBenchmarks(&display, to_file ? &file : nullptr);
}

}  // namespace psbench::bench
