#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "data/loader.hpp"
#include "mpi/communicator.hpp"
#include "nn/model.hpp"
#include "results/results_file.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/target_stop.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// Test evaluations during training (--eval-every N): every N steps the first worker evaluates the model the run
/// would deliver at that point on the test split and adds a point to the curve; with --target-accuracy it notes
/// the training time of the first point at the target, and with --stop-at-target every worker stops there
/// (TargetStop). In lockstep modes (sync, local, bmuf, average) the steps counted are every step the workers take
/// together, in async mode the first worker's own. The model evaluated is the first worker's parameters, except in
/// the block learners between synchronisations, where it is the combined model a synchronisation now would give
/// (GradientExchange::combined_model). An evaluation is not training time: in lockstep modes every worker waits for
/// it, in async mode the others pause for it (TargetStop), and each worker's clock leaves out that wait.
class TrainingEvaluation {
 public:
  /// Collective over workers when --stop-at-target or async pauses need it. model and test: the first worker's
  /// (null on the others); exchange and parameters: this worker's (the block learners combine the workers'
  /// models at each evaluation, every worker taking part).
  TrainingEvaluation(const TrainOptions& options, const mpi::Communicator& workers, nn::Model* model,
                     const data::Samples* test, const nn::InputShape& input, GradientExchange& exchange,
                     std::span<float> parameters);
  /// After each step (also sync's steps without a batch): steps taken so far, the step's epoch and loss
  /// (0 for a step without a batch), and the training time so far (the worker's training clock, which leaves
  /// out this object's evaluations and pauses). True when every worker stops here; the exchange's stopped()
  /// says when a diverged worker was found instead.
  bool after_step(std::uint64_t steps, std::uint32_t epoch, double loss, std::uint64_t samples, double training_s);
  /// Seconds this worker spent evaluating, or waiting for the first worker's evaluations, so far.
  [[nodiscard]] double evaluation_s() const { return evaluation_s_; }
  /// The points so far (the first worker's; empty on the others).
  [[nodiscard]] const std::vector<results::CurvePoint>& curve() const { return curve_; }
  /// At the end of this worker's training: lets the others' wait for the stop end (async).
  void finish() { stop_.finish(); }

 private:
  void evaluate(std::uint64_t steps, std::uint32_t epoch, double training_s, bool combined);

  std::uint64_t every_;
  double target_;  // 0: none
  int slow_factor_;
  nn::Model* model_;
  const data::Samples* test_;
  nn::InputShape input_;
  bool lockstep_;
  GradientExchange& exchange_;
  std::span<float> parameters_;
  AlignedBuffer combined_;  // the block learners' combined model (empty in the other modes)
  TargetStop stop_;
  std::vector<results::CurvePoint> curve_;
  double evaluation_s_ = 0.0;
  double loss_sum_ = 0.0;  // the first worker's step losses since the last point
  std::uint64_t losses_ = 0;
  std::uint64_t samples_ = 0;
  bool reached_ = false;
};

}  // namespace psbench::train
