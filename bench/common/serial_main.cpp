#include "serial_main.hpp"

#include <benchmark/benchmark.h>

#include "bench_context.hpp"
#include "contract_reporter.hpp"

namespace psbench::bench {

int serial_benchmark_main(int argc, char** argv) {
  const bool to_file = names_output_file(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  add_benchmark_context(collect_context());
  run_benchmarks(to_file);
  benchmark::Shutdown();
  return 0;
}

}  // namespace psbench::bench
