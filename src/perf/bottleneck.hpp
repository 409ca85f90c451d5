#pragma once

#include <string>

#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// What limits a predicted run.
enum class Bottleneck {
  kStartupRead,  ///< the start-up read is the longest phase: the disk (read in turn, or shared by all readers)
  kSetup,        ///< the set-up is the longest phase: each worker building its model on its node's cores
  kServerCpu,    ///< training is the longest phase and the servers' update keeps them busy
  kServerLink,   ///< training is the longest phase and the servers' links keep them busy
  kSharedCores,  ///< training is the longest phase and the nodes' cores, shared by more ranks, are busy
  kWorkers,      ///< training is the longest phase and nothing saturates: the workers' own steps
};

/// A resource at or above this utilisation saturates.
inline constexpr double kSaturatedUtilization = 0.8;

/// Why a prediction takes the time it does, from the model's own quantities: the phases of its total and the
/// utilisations of the resources in training (X the full pushes per second: a server's CPU X D_s, its link
/// X (D_srv - D_s), the nodes' cores X (t_fb + S D_s) / (N c) where ranks outnumber them).
struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::kWorkers;  ///< the limit
  double phase_share = 0.0;                      ///< the longest phase's share of the total
  double server_cpu = 0.0;                       ///< a server's busy share applying updates
  double server_link = 0.0;                      ///< a server's busy share waiting on its link
  double cores = 0.0;                            ///< busy share of the nodes' cores (0 where each rank has one)
  bool beyond_knee = false;                      ///< W above the knee W*
};

/// Diagnoses a prediction of the configuration whose costs are given.
Diagnosis diagnose(const StepCosts& costs, const Prediction& prediction);

/// A short label: startup-read, setup, server-cpu, server-link, shared-cores, workers.
const char* bottleneck_name(Bottleneck bottleneck);

/// The diagnosis in words, with the figures behind it and what would relieve it, e.g. "the servers' CPU:
/// each update keeps a server busy 96% of the time, 4 workers beyond the knee of 2.4; add servers".
std::string bottleneck_words(const Diagnosis& diagnosis, const Prediction& prediction, IoMode io);

}  // namespace psbench::perf
