#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perf/prediction.hpp"
#include "perf/saturation_model.hpp"
#include "results/bench_file.hpp"

namespace psbench::perf {

/// What `psbench model saturation` is asked for.
struct SaturationRequest {
  std::vector<Kind> kinds = {Kind::kMva, Kind::kSim};      ///< mva and/or sim
  std::vector<int> clients;                                ///< k to predict; empty: each run's measured k
  TimeDistribution times = TimeDistribution::kCalibrated;  ///< measured cv or exponential
  std::uint64_t seed = 1;                                  ///< sim's seed
  double sim_exchanges = 1000.0;                           ///< sim: exchanges counted per point
  bool cpu_station = true;                                 ///< model the node's cores (SaturationInputs::cpu_station)
};

/// One kind's curve for one run, beside the measurement.
struct SaturationCurve {
  Kind kind = Kind::kMva;                    ///< mva or sim
  std::vector<SaturationPrediction> points;  ///< per requested k
  int knee_clients = 0;                      ///< the benchmark's knee rule applied to the predicted points
  std::optional<double> mape_percent;        ///< mean absolute percentage error of updates/s over the measured k
};

/// One run of the file: its inputs, its measured knee and each kind's curve.
struct SaturationComparison {
  results::SaturationRun run;           ///< as measured
  SaturationInputs inputs;              ///< what the model took from it
  int measured_knee = 0;                ///< the knee rule applied to the measured points
  double knee_bound = 0.0;              ///< N* = (Z + c + D) / D
  std::vector<SaturationCurve> curves;  ///< in the order of the request's kinds
};

/// Predicts every run of the file with each requested kind and compares with its points. Throws UserError for a
/// kind other than mva or sim, a file with no runs, or a run the model cannot take (saturation_inputs()).
std::vector<SaturationComparison> compare_saturation(const results::SaturationFile& file,
                                                     const SaturationRequest& request);

/// The measured updates/s at k, if the run has that point.
std::optional<double> measured_rate(const results::SaturationRun& run, int clients);

}  // namespace psbench::perf
