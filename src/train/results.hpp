#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/results_file.hpp"
#include "train/run_summary.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// Run-level facts that the per-rank reports do not carry.
struct RunFacts {
  TrainOptions options;                              ///< every flag
  std::size_t parameters = 0;                        ///< P
  double flops_per_step = 0.0;                       ///< forward and backward FLOPs of one full-batch step
  std::uint64_t total_samples = 0;                   ///< training samples in the file
  std::string parameter_checksum;                    ///< FNV-1a of the final parameters' bytes, hex
  std::vector<EpochRecord> live_epochs;              ///< epoch lines as rank 0 printed them (utilisation in async mode)
  std::optional<results::ResumedFrom> resumed_from;  ///< the checkpoint the run resumed from, if any
};

/// Largest seconds of each phase over the per_rank entries.
PhaseSeconds max_phases(const std::vector<results::RankEntry>& per_rank);

/// Per-epoch records over all workers, from the workers' tallies in per_rank (only the epochs some worker
/// ran: a resumed run starts at its checkpoint's epoch).
std::vector<EpochRecord> epoch_records(const std::vector<results::RankEntry>& per_rank);

/// The evaluation of the final parameters, from the per_rank entry that carries it.
Evaluation final_evaluation(const std::vector<results::RankEntry>& per_rank);
/// The evaluating worker's test evaluations during training (--eval-every), if any.
std::optional<std::vector<results::CurvePoint>> training_curve(const std::vector<results::RankEntry>& per_rank);
/// The curve time of the first point at or above target; none without a target or a point that reached it.
std::optional<double> time_to_target(const std::optional<std::vector<results::CurvePoint>>& curve,
                                     std::optional<double> target);

/// All servers together: updates summed, staleness histograms merged by adding counts.
results::ServerSummary server_summary(const std::vector<results::RankEntry>& per_rank);

/// The whole results file (its keys are in docs/results.md).
results::ResultsFile assemble_results(const RunFacts& facts, std::vector<results::RankEntry> per_rank,
                                      results::Environment env);

/// FNV-1a (64-bit) of a float vector's bytes, as 16 hex digits.
std::string checksum_of(const std::vector<float>& values);

}  // namespace psbench::train
