#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "perf/calibration.hpp"
#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// The phases validate compares: the start-up read, the training loop, the whole run (phases.total) and the final
/// evaluation after it (train.evaluation_s).
inline constexpr const char* kValidatedPhases[] = {"init_io", "compute", "total", "evaluation"};

/// The measured quantities validate also compares with every kind's prediction: the servers' utilisation (compared
/// by the absolute difference) and the mean staleness (by the percentage error).
inline constexpr const char* kComparedQuantities[] = {"server_utilization", "staleness_mean"};

/// What validate reports measured beside the phases, per run and as each configuration's median, lowest and
/// highest (no prediction is compared with them): the init_io phase as written (format 1's also holds the
/// conversion), the set-up share phases.init_total / phases.total, the servers' utilisation, updates/s (each
/// shard's update counts), full pushes/s (updates/s / S: one per worker step) and mean staleness.
inline constexpr const char* kMeasuredQuantities[] = {"init_io_phase", "setup_share",  "server_utilization",
                                                      "updates_per_s", "pushes_per_s", "staleness_mean"};

/// One run, or the median of repeated runs of one configuration, against its predictions.
struct RunComparison {
  std::string file;                                              ///< the (first) results file
  std::vector<std::string> files;                                ///< every results file of the configuration
  int workers = 0;                                               ///< W
  int servers = 0;                                               ///< S
  std::string io;                                                ///< sequential | parallel
  std::string configuration;                                     ///< what identical runs share: data, model, W, S, ...
  int repetitions = 1;                                           ///< runs of this configuration behind `measured`
  std::map<std::string, double> measured;                        ///< phase or quantity -> the repetitions' median
  std::map<std::string, double> lowest;                          ///< phase or quantity -> the repetitions' lowest
  std::map<std::string, double> highest;                         ///< phase or quantity -> the repetitions' highest
  std::map<Kind, std::map<std::string, double>> predicted;       ///< kind -> phase -> seconds, and kComparedQuantities
  std::map<Kind, std::map<std::string, TimeInterval>> interval;  ///< kind -> phase -> 80 % interval (configurations)
};

/// How many measured medians of one kind and phase fall inside their 80 % intervals, and how wide those are.
struct IntervalCoverage {
  int inside = 0;                     ///< configurations whose measured median lies within [low, high]
  int count = 0;                      ///< configurations with an interval
  double median_width_percent = 0.0;  ///< the median of 100 (high - low) / predicted over them
};

/// Coverage per kind and phase.
using CoverageTable = std::map<Kind, std::map<std::string, IntervalCoverage>>;

/// Counts, per kind and phase, the configurations whose measured median lies inside their interval (bounds
/// included), and the median relative width; configurations without intervals are left out.
CoverageTable interval_coverage(const std::vector<RunComparison>& configurations, const std::vector<Kind>& kinds);

/// How far each kind's utilisation and staleness are from the measured ones over a set of comparisons.
struct QuantityErrors {
  double utilization_mean_abs_diff = 0.0;  ///< mean |predicted - measured| server utilisation (0..1)
  double utilization_max_abs_diff = 0.0;   ///< the largest such difference
  double staleness_mape_percent = 0.0;     ///< MAPE of the mean staleness, over comparisons whose measured one is > 0
  double staleness_max_ape_percent = 0.0;  ///< the largest such error
  int staleness_count = 0;                 ///< comparisons the staleness figures cover
};

/// The utilisation and staleness errors per kind (comparisons of learners without servers are left out).
std::map<Kind, QuantityErrors> quantity_errors(const std::vector<RunComparison>& runs, const std::vector<Kind>& kinds);

/// How the absolute percentage errors of one kind and phase spread over a set of comparisons, percent.
struct ErrorSpread {
  double mean = 0.0;    ///< the mean: the MAPE
  double median = 0.0;  ///< the median
  double p90 = 0.0;     ///< the 90th percentile
  double max = 0.0;     ///< the largest
};

/// The spread of absolute percentage errors (percentiles interpolated as common/median.hpp's percentile);
/// throws std::invalid_argument for no errors.
ErrorSpread error_spread(const std::vector<double>& absolute_errors);

/// The spread of the absolute percentage error per kind and phase.
using ErrorTable = std::map<Kind, std::map<std::string, ErrorSpread>>;

/// What a validation found.
struct Validation {
  std::vector<RunComparison> runs;            ///< every file, in the order given
  std::vector<RunComparison> configurations;  ///< one per configuration: its runs' medians, in first-seen order
  ErrorTable errors;                          ///< over the configurations (--max-mape judges its mean)
  ErrorTable run_errors;                      ///< over every run
  /// phase -> how far each run of a repeated configuration lies from the median of its configuration's other runs
  /// (the error of a model exact on those runs: the sweep's own noise beside run_errors); empty when none repeats
  std::map<std::string, ErrorSpread> repeat_errors;
  int repeated_runs = 0;                      ///< the runs repeat_errors covers
  CoverageTable coverage;                     ///< the configurations' medians inside their 80 % intervals
  std::map<Kind, QuantityErrors> quantities;  ///< utilisation and staleness against every kind, over configurations
};

/// Options of a validation.
struct ValidateOptions {
  std::vector<Kind> kinds;        ///< kinds to predict (none: the measured figures alone, no calibration read)
  std::string platform = "this";  ///< where the runs ran
  InputShape input;               ///< sample shape of the runs' data
  int interval_samples = 0;       ///< draws for each configuration's 80 % intervals (below 2: none)
  std::uint64_t seed = 1;         ///< the draws' seed
};

/// Measures every run (the phases and kMeasuredQuantities) and, for each of options.kinds, predicts it (its config:
/// model, batch, samples, epochs, W, S, I/O) and compares init_io (the
/// slowest reader's end, load wait_s + read_s), compute (train.training_s: the training loop) and total (phases.total),
/// per run and per configuration (runs identical but for their output file count as repetitions of one: their
/// median is compared). Throws UserError for no runs, a missing or malformed file, or a model whose parameter count
/// differs from the spec at the given input shape.
Validation validate_runs(const Calibration& calibration, const std::vector<std::string>& run_files,
                         const ValidateOptions& options);

/// The band within which validate counts a prediction as close (percent of the measured value).
inline constexpr double kValidationBandPercent = 15.0;

/// The format number of format_validation_json's document.
inline constexpr int kValidationJsonFormat = 1;

/// JSON (docs/formats.md#validate-json): the kinds, the phases, one object per configuration (its files, W, S,
/// I/O, repetitions, measured median, lowest and highest of each phase and of kMeasuredQuantities, predicted and
/// signed error per kind and phase), the same per run, and per kind and phase the MAPE, the median, 90th
/// percentile and maximum absolute percentage error and the count within the band, over the configurations and
/// over every run, and the repeats' own spread (null when no configuration repeats).
std::string format_validation_json(const Validation& validation, const std::vector<Kind>& kinds);

/// Text: one line per configuration and phase with the measured median (and range), predicted seconds and errors,
/// then per kind and phase the MAPE, median, 90th percentile and maximum error over the configurations and over
/// every run, and the same spread of each repeated run against its configuration's other runs.
std::string format_validation(const Validation& validation, const std::vector<Kind>& kinds);

}  // namespace psbench::perf
