#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/loader.hpp"
#include "ps/server.hpp"
#include "results/results_file.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/run_summary.hpp"
#include "train/worker_trainer.hpp"

namespace psbench::train {

/// What a worker rank reports after training.
struct WorkerReport {
  int index = 0;                   ///< worker index
  std::uint64_t samples = 0;       ///< samples in its partition
  std::uint64_t first_index = 0;   ///< index of its first sample in the split
  std::uint64_t pushes = 0;        ///< gradient shards pushed (steps x servers; 0 in sync and local)
  VisitCheck visits;               ///< visit counts' check
  std::vector<EpochTally> epochs;  ///< per-epoch tallies
  std::vector<std::optional<double>> epoch_test_accuracy;  ///< test accuracy after each epoch (local only)
  std::optional<Evaluation> final_evaluation;              ///< local only: the last epoch's, of the final parameters
  data::LoadTiming load;                                   ///< what loading its partition cost
  std::optional<ExchangeTotals> exchange;                  ///< its exchange's wall and blocked time (sync, async)
  std::vector<results::CurvePoint> curve;                  ///< --eval-every: the first worker's test evaluations
  std::optional<std::string> diverged;                     ///< the error line when its own loss was not finite
  std::optional<std::string> stopped;                      ///< the error line when another rank's divergence stopped it
};

/// What a server rank reports after serving.
struct ServerReport {
  int shard = 0;                  ///< shard index
  std::uint64_t shard_begin = 0;  ///< first parameter of the shard
  std::uint64_t shard_size = 0;   ///< parameters in the shard
  ps::ServerStats stats;          ///< what serve() measured
  /// Bytes of the per-worker shard copies of --delay-compensation (0 without it).
  std::uint64_t delay_compensation_bytes = 0;
};

/// The per_rank entry of the results file for one rank (host, cores and peak RSS of this process); times are
/// made relative to origin. The evaluation's parameter_checksum and flops_per_step are left to the caller.
results::RankEntry rank_entry(int rank, const PhaseSeconds& phases, const std::optional<WorkerReport>& worker,
                              const std::optional<ServerReport>& server, const std::optional<Evaluation>& evaluation,
                              double origin);

}  // namespace psbench::train
