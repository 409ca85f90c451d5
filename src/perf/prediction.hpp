#pragma once

#include <optional>
#include <string>
#include <vector>

#include "perf/scenario.hpp"

namespace psbench::perf {

/// The four kinds of model, in the order predictions list them.
enum class Kind { kIdeal, kRevised, kMva, kSim };

/// Every kind, in kind_order.
inline constexpr Kind kAllKinds[] = {Kind::kIdeal, Kind::kRevised, Kind::kMva, Kind::kSim};

/// The CLI's word for a kind: ideal, revised, mva, sim.
const char* kind_name(Kind kind);

/// An interval of a predicted time: the 10th and 90th percentiles over predictions from calibrations drawn from the
/// calibration's spread (perf/interval.hpp).
struct TimeInterval {
  double low = 0.0;   ///< 10th percentile, seconds
  double high = 0.0;  ///< 90th percentile, seconds
};

/// The intervals of one prediction's times.
struct PredictionIntervals {
  TimeInterval init_io_s;     ///< of init_io_s
  TimeInterval compute_s;     ///< of compute_s
  TimeInterval total_s;       ///< of total_s
  TimeInterval evaluation_s;  ///< of evaluation_s
};

/// One predicted configuration (docs/formats.md#predict-json).
struct Prediction {
  Kind kind = Kind::kIdeal;            ///< which model
  int workers = 1;                     ///< W
  int servers = 1;                     ///< S
  IoMode io = IoMode::kSequential;     ///< --io of the scenario predicted
  ReadMode read = ReadMode::kWhole;    ///< --read of the scenario predicted
  double init_io_s = 0.0;              ///< start-up read, the slowest worker's
  double compute_s = 0.0;              ///< training loop
  double total_s = 0.0;                ///< set-up + init_io + compute
  double evaluation_s = 0.0;           ///< the final evaluation after total: the test split's read and forward passes
  double updates_per_s = 0.0;          ///< full pushes per second, all workers
  double samples_per_s = 0.0;          ///< training samples per second
  double server_utilization = 0.0;     ///< busy share of a server: its update rate x D_srv (update and links held)
  double staleness_mean = 0.0;         ///< mean versions a gradient is behind at its server
  std::optional<double> knee_workers;  ///< W*: none for the ideal model, which never saturates
  std::optional<PredictionIntervals> interval;  ///< the times' 80 % intervals, where asked for
};

}  // namespace psbench::perf
