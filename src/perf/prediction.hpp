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
  double updates_per_s = 0.0;          ///< full pushes per second, all workers
  double samples_per_s = 0.0;          ///< training samples per second
  double server_utilization = 0.0;     ///< busy share of a server: its update rate x D_srv (update and links held)
  double staleness_mean = 0.0;         ///< mean versions a gradient is behind at its server
  std::optional<double> knee_workers;  ///< W*: none for the ideal model, which never saturates
};

}  // namespace psbench::perf
