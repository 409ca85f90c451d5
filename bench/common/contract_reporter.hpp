#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <vector>

#include "mpi/communicator.hpp"

namespace psbench::bench {

/// Gives the runs the names and counters of docs/benchmarks.md, then hands them to inner. Names lose Google
/// Benchmark's time-type suffix (/real_time, /manual_time), so a name's last argument is its byte count.
/// Runs are held until the end: each BM_PushPull run (iterations, mean and median) then gets the counters
/// vs_limit = limit time / measured time and limit_us, where the limit at BYTES is the pipelined one,
/// max(BM_RawMpiExchange/BYTES, BM_LocalUpdate/BYTES), each the median over this run's repetitions. A
/// push/pull run whose size lacks either limit gets neither counter.
class ContractReporter : public benchmark::BenchmarkReporter {
 public:
  /// Forwards to inner (which must outlive this reporter).
  explicit ContractReporter(benchmark::BenchmarkReporter& inner) : inner_(inner) {}
  /// Forwards the context at once, with this reporter's streams.
  bool ReportContext(const Context& context) override;
  /// Keeps the runs until Finalize.
  void ReportRuns(const std::vector<Run>& runs) override { batches_.push_back(runs); }
  /// Adds the counters and reports every batch to inner in the order it came.
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter& inner_;
  std::vector<std::vector<Run>> batches_;
};

/// True when argv has --benchmark_out=FILE; ask before benchmark::Initialize, which takes the flag out.
bool names_output_file(int argc, char** argv);

/// Takes --benchmark_out=FILE and --benchmark_out_format=F out of argv, for a process that must not write the file
/// (call before benchmark::Initialize): Google Benchmark opens and truncates it in every process given the flag.
void drop_output_file(int& argc, char** argv);

/// An MPI benchmark whose ranks all run the same loops: the reporting rank runs them through run_benchmarks with
/// the machine's context (bench_context.hpp), every other rank silently (call after benchmark::Initialize; the
/// others must have had drop_output_file).
void run_benchmarks_on_ranks(bool reporting, bool to_file);

/// The main of an MPI benchmark whose ranks all run the same loops and whose rank 0 reports: take_flags takes the
/// benchmark's own flags out of argv (a std::exception there ends every rank, rank 0 printing one `psbench: error:`
/// line: exit code 2), then, after benchmark::Initialize, register_benchmarks registers its runs, which run on every
/// rank (run_benchmarks_on_ranks). Returns main's exit code.
int mpi_benchmark_main(const mpi::Communicator& world, int& argc, char** argv,
                       const std::function<void(int&, char**)>& take_flags,
                       const std::function<void()>& register_benchmarks);

/// Runs the registered benchmarks (after benchmark::Initialize) through ContractReporter: to the console,
/// and when to_file, as JSON to the file --benchmark_out named (whatever --benchmark_out_format says).
void run_benchmarks(bool to_file);

}  // namespace psbench::bench
