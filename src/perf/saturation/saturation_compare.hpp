#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perf/prediction.hpp"
#include "perf/saturation/saturation_model.hpp"
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

/// How far the measured points' own service demand strayed from the model's D, and what mva makes of the run
/// given each point's own D: the error left to the model's form once the machine's speed is known at every k.
struct DemandDrift {
  double low = 0.0;               ///< the smallest point's D over the model's D
  double high = 0.0;              ///< the largest
  double mva_mape_percent = 0.0;  ///< mva's MAPE with each point's own D (as D and D_0) in place of the probe's
  int mva_knee_clients = 0;       ///< the knee rule applied to those predictions
};

/// One run of the file: its inputs, its measured knee and each kind's curve.
struct SaturationComparison {
  results::SaturationRun run;           ///< as measured
  SaturationInputs inputs;              ///< what the model took from it
  int measured_knee = 0;                ///< the knee rule applied to the measured points
  double measured_plateau = 0.0;        ///< the measured plateau (updates/s) the same rule found
  double knee_bound = 0.0;              ///< N* = (Z + c + D) / D
  std::vector<SaturationCurve> curves;  ///< in the order of the request's kinds
  std::optional<DemandDrift> drift;     ///< where every point carries its own D (points[].service_us/server_cpu_us)
};

/// Predicts every run of the file with each requested kind and compares with its points. Throws UserError for a
/// kind other than mva or sim, a file with no runs, or a run the model cannot take (saturation_inputs()).
std::vector<SaturationComparison> compare_saturation(const results::SaturationFile& file,
                                                     const SaturationRequest& request);

/// The drift of the run's points' D from inputs' D and mva's MAPE given each point's own D; none where a point
/// lacks its D or the run has none.
std::optional<DemandDrift> demand_drift(const results::SaturationRun& run, const SaturationInputs& inputs,
                                        TimeDistribution times);

/// The measured updates/s at k, if the run has that point.
std::optional<double> measured_rate(const results::SaturationRun& run, int clients);

}  // namespace psbench::perf
