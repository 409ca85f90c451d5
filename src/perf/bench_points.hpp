#pragma once

#include <map>
#include <string>
#include <vector>

#include "perf/calibration.hpp"
#include "results/bench_file.hpp"

namespace psbench::perf {

/// Points gathered from the benchmark files, keyed by what they measure, each list with its sources.
struct BenchPoints {
  std::map<std::string, std::vector<Point>> step_s_vs_batch;        ///< per model spec
  std::vector<double> flops_per_s;                                  ///< train-step FLOP/s counters
  std::vector<Point> exchange_messages;                             ///< seconds vs bytes, path:0
  std::vector<Point> exchange_shared_window;                        ///< seconds vs bytes, path:1
  std::vector<Point> exchange_rma;                                  ///< seconds vs bytes, path:2
  std::vector<Point> update;                                        ///< seconds vs bytes
  std::vector<Point> update_compensated;                            ///< DC-ASGD's update: seconds vs bytes
  std::vector<Point> quantize;                                      ///< 1-bit quantization: seconds vs fp32 bytes
  std::vector<Point> dequantize;                                    ///< 1-bit dequantization: seconds vs fp32 bytes
  std::vector<Point> allreduce;                                     ///< MPI_Allreduce: seconds vs ring bytes per rank
  std::vector<Point> serial_read;                                   ///< seconds vs bytes
  std::vector<double> parallel_read_Bps;                            ///< bytes/s
  std::vector<Point> fresh_later_read;                              ///< a chain's readers after the first, fresh pages
  std::vector<Point> setup_s_vs_workers_per_core;                   ///< BM_TrainSetUp: a run's set-up vs W / cores
  std::map<std::string, std::vector<Point>> evaluate_s_vs_samples;  ///< BM_Evaluate*: one evaluation call, per model
  std::vector<Point> core_sharing;                                  ///< BM_TrainStepShared: stretch vs ranks per core
  std::vector<results::SaturationRun> saturation;                   ///< server_saturation curves
  std::map<std::string, std::string> sources;                       ///< quantity -> files, comma-separated
  MachineFacts machine;                                             ///< from the first file's context
};

/// Adds one Google Benchmark file's points (names per docs/formats.md#bench-file; the last argument is the byte count
/// or the batch). Aggregates and errored runs are skipped.
void add_google_benchmark(const results::GoogleBenchmarkFile& file, const std::string& path, BenchPoints& points);

/// Adds a server_saturation file.
void add_saturation(const results::SaturationFile& file, const std::string& path, BenchPoints& points);

}  // namespace psbench::perf
