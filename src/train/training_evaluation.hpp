#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "data/loader.hpp"
#include "mpi/communicator.hpp"
#include "nn/model.hpp"
#include "results/results_file.hpp"
#include "train/target_stop.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// Test evaluations during training (--eval-every N): every N steps the first worker evaluates its current
/// parameters on the test split, timed apart from training, and adds a point to the curve; with
/// --target-accuracy it notes the training time of the first point at the target, and with --stop-at-target
/// every worker stops there (TargetStop). In sync and local mode the steps counted are every step the
/// workers take together; in async mode the first worker's own.
class TrainingEvaluation {
 public:
  /// Collective over workers when --stop-at-target is given. model and test: the first worker's (null on the
  /// others, which only learn when to stop).
  TrainingEvaluation(const TrainOptions& options, const mpi::Communicator& workers, nn::Model* model,
                     const data::Samples* test, const nn::InputShape& input);
  /// After each step (also sync's steps without a batch): steps taken so far, the step's epoch and loss
  /// (0 for a step without a batch), and the training time so far (wall time since the first step, less this
  /// object's evaluations). True when every worker stops here.
  bool after_step(std::uint64_t steps, std::uint32_t epoch, double loss, std::uint64_t samples, double training_s);
  /// Seconds spent evaluating so far.
  [[nodiscard]] double evaluation_s() const { return evaluation_s_; }
  /// The points so far (the first worker's; empty on the others).
  [[nodiscard]] const std::vector<results::CurvePoint>& curve() const { return curve_; }
  /// At the end of this worker's training: lets the others' wait for the stop end (async).
  void finish() { stop_.finish(); }

 private:
  std::uint64_t every_;
  double target_;  // 0: none
  nn::Model* model_;
  const data::Samples* test_;
  nn::InputShape input_;
  bool lockstep_;
  TargetStop stop_;
  std::vector<results::CurvePoint> curve_;
  double evaluation_s_ = 0.0;
  double loss_sum_ = 0.0;  // the first worker's step losses since the last point
  std::uint64_t losses_ = 0;
  std::uint64_t samples_ = 0;
  bool reached_ = false;
};

}  // namespace psbench::train
