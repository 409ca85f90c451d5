#pragma once

#include <string>

#include "results/bench_file.hpp"
#include "results/results_file.hpp"

namespace psbench::results {

/// Reads and checks a results file of `psbench train`; any problem (unreadable, not JSON, wrong format
/// version, a missing key or a value of the wrong type) throws SchemaError or UserError naming the file
/// and the key.
ResultsFile read_results_file(const std::string& path);

/// Parses a results document from text; source names it in errors.
ResultsFile parse_results(const std::string& text, const std::string& source);

/// Reads a benchmark file: server_saturation's own JSON (it has a "benchmark" key) or a Google Benchmark
/// JSON file; errors name the file and the key.
BenchFile read_bench_file(const std::string& path);

/// Parses a benchmark document from text; source names it in errors.
BenchFile parse_bench(const std::string& text, const std::string& source);

/// Whether a file is bench/trainer_limit.sh's trainer_limit.json (format 1, "benchmark": "trainer_limit"), which
/// bench/run_all.sh writes beside the files calibrate reads; errors as read_bench_file's.
bool is_trainer_limit_file(const std::string& path);

/// read_bench_file() for a file that must be a Google Benchmark file (UserError naming it otherwise).
GoogleBenchmarkFile read_google_benchmark_file(const std::string& path);

/// read_bench_file() for a file that must be a server_saturation file (UserError naming it otherwise).
SaturationFile read_saturation_file(const std::string& path);

/// The results file's text (indented JSON and a newline); a non-finite number throws SchemaError naming
/// its key.
std::string results_text(const ResultsFile& file);

/// Writes the results file atomically (a temporary file and a rename); nothing is written when the file
/// cannot be serialised.
void write_results_file(const std::string& path, const ResultsFile& file);

}  // namespace psbench::results
