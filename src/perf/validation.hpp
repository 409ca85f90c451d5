#pragma once

#include <map>
#include <string>
#include <vector>

#include "perf/calibration.hpp"
#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// The phases validate compares: the start-up read, the training loop, and the whole run.
inline constexpr const char* kValidatedPhases[] = {"init_io", "compute", "total"};

/// One run against its predictions: measured seconds per phase, and each kind's.
struct RunComparison {
  std::string file;                                         ///< the results file
  int workers = 0;                                          ///< W
  int servers = 0;                                          ///< S
  std::string io;                                           ///< sequential | parallel
  std::map<std::string, double> measured;                   ///< phase -> seconds
  std::map<Kind, std::map<std::string, double>> predicted;  ///< kind -> phase -> seconds
};

/// Mean absolute percentage error per kind and phase over the runs.
using MapeTable = std::map<Kind, std::map<std::string, double>>;

/// What a validation found.
struct Validation {
  std::vector<RunComparison> runs;  ///< in the order given
  MapeTable mape;                   ///< percent
};

/// Options of a validation.
struct ValidateOptions {
  std::vector<Kind> kinds;        ///< kinds to predict
  std::string platform = "this";  ///< where the runs ran
  InputShape input;               ///< sample shape of the runs' data
};

/// Predicts every run (its config: model, batch, samples, epochs, W, S, I/O) and compares init_io (the
/// slowest reader's end, load wait_s + read_s), compute (train.training_s: the training loop) and total (phases.total).
/// Throws UserError for no runs, a missing or malformed file, or a model whose parameter count differs from the spec at
/// the given input shape.
Validation validate_runs(const Calibration& calibration, const std::vector<std::string>& run_files,
                         const ValidateOptions& options);

/// Text: one line per run and phase with measured and predicted seconds and errors, then the MAPE table.
std::string format_validation(const Validation& validation, const std::vector<Kind>& kinds);

}  // namespace psbench::perf
