#pragma once

#include <vector>

#include "perf/calibration.hpp"
#include "perf/prediction.hpp"
#include "perf/scenario.hpp"
#include "perf/sim/simulation.hpp"

namespace psbench::perf {

/// A prediction request: the scenario and the counts and kinds to predict.
struct PredictRequest {
  Scenario scenario;         ///< the run
  std::vector<int> workers;  ///< W values, ascending
  std::vector<int> servers;  ///< S values, ascending
  std::vector<Kind> kinds;   ///< kinds, in kind_order
  SimOptions sim;            ///< options of the sim kind
  int interval_samples = 0;  ///< calibrations drawn for each time's 80 % interval (perf/interval.hpp); below 2: none
  int runs_in_median = 1;    ///< each total is the median of this many runs: its interval holds their own spread
};

/// Predicts every (kind, S, W); ordered by kind, then S, then W; with request.interval_samples, each with its
/// intervals (add_intervals). Throws UserError for an empty list.
std::vector<Prediction> predict(const Calibration& calibration, const PredictRequest& request);

}  // namespace psbench::perf
