#pragma once

#include <map>
#include <string>
#include <vector>

#include "perf/fit.hpp"
#include "results/results_file.hpp"

namespace psbench::perf {

/// One run's final evaluation: its test samples, their stored bytes and the seconds it took (train.evaluation_s).
struct EvaluationPoint {
  double test_samples = 0.0;  ///< train.test_samples
  double test_bytes = 0.0;    ///< test samples x the run's stored bytes per sample
  double seconds = 0.0;       ///< train.evaluation_s: the test split's read and its evaluation calls
};

/// What the results files of real runs measure on psbench's own code path.
struct RunPoints {
  std::map<std::string, std::vector<Point>> step_s_vs_batch;       ///< compute per step, uncontended runs
  std::vector<double> setup_s;                                     ///< total - training - read_end_s, uncontended runs
  std::vector<Point> sequential_read;                              ///< seconds vs bytes per sequential reader
  std::vector<double> parallel_read_Bps;                           ///< all bytes / the slowest reader, parallel runs
  std::vector<Point> service_s_vs_shard_bytes;                     ///< server busy time per update, uncontended
  std::vector<Point> exchange_s_vs_bytes;                          ///< (push + pull) / steps less D, uncontended
  std::map<std::string, std::vector<EvaluationPoint>> evaluation;  ///< per model spec, uncontended runs
  std::map<std::string, std::vector<double>> total_s;              ///< phases.total per configuration, every run
  std::vector<std::string> sources;                                ///< files used
};

/// When the run's start-up read ended, what the disk term predicts: the latest wait + read of any reader (0
/// without readers).
double read_end_s(const results::ResultsFile& run);

/// Whether the run's servers applied DC-ASGD's update (--delay-compensation, lambda 0 included: the servers kept
/// their shard copies, per_rank[].server.delay_compensation_bytes).
bool delay_compensated(const results::ResultsFile& run);

/// What runs that repeat one another share: everything in their config but the output and trace files.
std::string configuration_of(const results::ResultsFile& run);

/// Adds one async run's points; a run whose ranks outnumber its cores gives only read points, since its
/// compute, service and set-up times include waiting for a core, and a delay-compensated or 1-bit run only read
/// points, since its servers' service is not the fp32 update's. Runs of the other modes are skipped.
void add_run(const results::ResultsFile& run, const std::string& path, RunPoints& points);

}  // namespace psbench::perf
