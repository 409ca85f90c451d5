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
};

/// Predicts every (kind, S, W); ordered by kind, then S, then W. Throws UserError for an empty list.
std::vector<Prediction> predict(const Calibration& calibration, const PredictRequest& request);

}  // namespace psbench::perf
