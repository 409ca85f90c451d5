#pragma once

#include <optional>
#include <string>
#include <vector>

#include "perf/bottleneck.hpp"
#include "perf/calibration.hpp"
#include "perf/prediction.hpp"
#include "perf/scenario.hpp"
#include "perf/sim/simulation.hpp"

namespace psbench::perf {

/// What `psbench model plan` is asked: the run, the node budget and how much to simulate.
struct PlanRequest {
  Scenario scenario;                ///< the run; its I/O mode, read and ranks per node are searched
  int nodes = 0;                    ///< the node budget N
  int confirm = 3;                  ///< simulate the recommendation and runners-up, this many of them
  double sim_max_pushes = 16384.0;  ///< simulate only configurations of at most this many shard pushes
  SimOptions sim;                   ///< the simulation's options
  int interval_samples = 0;         ///< draws for the listed configurations' 80 % intervals (below 2: none)
};

/// One configuration of the grid as mva predicts it, and what the simulation and the diagnosis say of it.
struct PlanChoice {
  Prediction mva;                   ///< mva's prediction (its W, S, phases, throughput, utilisation, knee)
  IoMode io = IoMode::kSequential;  ///< the I/O mode (read whole if sequential, partition if parallel)
  int ranks_per_node = 0;           ///< r as the grid set it (0 on `this`)
  int nodes = 1;                    ///< the nodes it takes
  std::optional<Prediction> sim;    ///< the simulation's prediction, where it ran
  std::string sim_note;             ///< why a confirmed one has none: over --sim-max-pushes, or it failed
  Diagnosis diagnosis;              ///< its bottleneck
};

/// The plan: the recommendation, the runners-up and the study's own set-up, from a searched grid.
struct Plan {
  std::vector<PlanChoice> choices;  ///< the recommendation, then the best of each other (S, I/O) pair, lowest
                                    ///< total first
  PlanChoice fastest;               ///< mva's lowest total of the whole grid
  PlanChoice study;                 ///< the best with one server and sequential I/O, the study's set-up
  std::vector<PlanChoice> surface;  ///< every configuration at the recommendation's I/O mode and ranks per node,
                                    ///< by S, then W: the predicted total around the recommendation
  int searched = 0;                 ///< configurations mva predicted
};

/// The most runners-up a plan lists.
inline constexpr int kPlanRunnersUp = 4;

/// The recommendation is the configuration of fewest nodes within this fraction of the lowest total: a far
/// smaller share than the model's error, so nodes are not spent on a difference it cannot resolve.
inline constexpr double kPlanTolerance = 0.01;

/// Searches plan_grid with mva (perf::predict), ranks every configuration by total time (ties: fewer nodes, fewer
/// ranks, fewer ranks per node, sequential I/O), recommends the fewest nodes within kPlanTolerance of the lowest
/// total (the lowest total among them), diagnoses the listed ones and simulates the first request.confirm of them whose
/// shard pushes (W x S x steps) are at most request.sim_max_pushes; a simulation that fails is noted, not fatal. Throws
/// UserError for a budget below 1, above 1 on `this` or above a rack's nodes, or one that fits no configuration.
Plan plan(const Calibration& calibration, const PlanRequest& request);

}  // namespace psbench::perf
