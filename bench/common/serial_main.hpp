#pragma once

namespace psbench::bench {

/// The main of a serial Google Benchmark binary: parses the flags (exit 2 on an unknown one), records where
/// it ran (bench_context.hpp) and runs the registered benchmarks through ContractReporter.
int serial_benchmark_main(int argc, char** argv);

}  // namespace psbench::bench
