#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/phase_timer.hpp"
#include "data/loader.hpp"
#include "nn/model.hpp"
#include "train/batch_assembler.hpp"
#include "train/epoch_order.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/trace_recorder.hpp"
#include "train/training_evaluation.hpp"

namespace psbench::train {

/// What one worker did in one epoch.
struct EpochTally {
  std::uint32_t epoch = 0;    ///< epoch, from 0
  std::uint64_t steps = 0;    ///< steps with a batch of this worker's own
  std::uint64_t samples = 0;  ///< samples processed
  double loss_sum = 0.0;      ///< sum of the steps' mean losses
  double started_at = 0.0;    ///< monotonic seconds at the epoch's start
  double finished_at = 0.0;   ///< monotonic seconds at the epoch's end
  double evaluation_s = 0.0;  ///< test evaluations during the epoch (--eval-every), not training time
};

/// How often each local sample was visited, checked after every epoch.
struct VisitCheck {
  std::uint32_t min = 0;           ///< fewest visits of any sample
  std::uint32_t max = 0;           ///< most visits of any sample
  std::uint32_t exact_epochs = 0;  ///< epochs after which every sample had been visited exactly epoch+1 times
};

/// Where a worker stopped training early: its own loss was not finite, or another rank's was.
struct StopPoint {
  std::uint32_t epoch = 0;  ///< epoch, from 0
  std::uint64_t step = 0;   ///< the worker's own steps so far, counting this one (from 1)
  float loss = 0.0F;        ///< the loss of that step (its own non-finite loss when own_loss)
  bool own_loss = false;    ///< true when this worker's loss was the non-finite one
};

/// What a worker needs besides its data and model.
struct WorkerSettings {
  std::string model_spec;    ///< spec, to build the model of the last, smaller batch
  int batch = 1;             ///< samples per step
  std::uint64_t seed = 1;    ///< shuffling seed
  std::uint32_t worker = 0;  ///< worker index, mixed into the shuffle seed
  int threads = 1;           ///< oneDNN threads
  int warmup_steps = 0;      ///< the worker's first steps whose gradient ramps up linearly (0: none)
};

/// Called after every step (for the live progress line): the step and the epoch's step count.
using StepObserver = std::function<void(const StepInfo& step, std::size_t steps_in_epoch)>;

/// One worker's training loop: shuffles its partition each epoch, assembles batches, runs forward and
/// backward, and hands each gradient to the exchange. When the batch b does not divide the partition, the
/// remainder of t samples forms one smaller last batch, run by a second Model built once for size t (its
/// parameters are copied from the main model before the step). Its mean gradient, written into the main
/// model's gradient vector, is scaled there by t/b, which equals a full batch padded with masked samples:
/// every sample of the epoch carries the same weight lr/b, and a tiny remainder cannot kick the weights. With warm-up,
/// the k-th of the worker's first warmup_steps gradients is scaled by k/warmup_steps the same way. Every sample is
/// visited exactly once per epoch and no step allocates a buffer.
class WorkerTrainer {
 public:
  /// Prepares buffers, the shuffle order and (if needed) the model of the last batch.
  WorkerTrainer(const data::Samples& samples, nn::Model& model, GradientExchange& exchange,
                const WorkerSettings& settings, PhaseTimer& timer, TraceRecorder& trace);
  ~WorkerTrainer();
  WorkerTrainer(const WorkerTrainer&) = delete;
  WorkerTrainer& operator=(const WorkerTrainer&) = delete;

  /// Runs one epoch; observer (if set) is called after every step. A non-finite loss, or an exchange that
  /// reports another rank's, ends the epoch early and sets stop().
  EpochTally run_epoch(std::uint32_t epoch, const StepObserver& observer = {});
  /// Resuming from a checkpoint, before the first run_epoch (which must be of epoch): that epoch starts at
  /// step, the earlier epochs' and its first step batches count as visited (the interrupted run trained
  /// them) and so do their steps for the warm-up.
  void resume_at(std::uint32_t epoch, std::size_t step);
  /// Evaluates during training (--eval-every) through evaluation, which outlives this trainer; before the
  /// first run_epoch.
  void evaluate_during_training(TrainingEvaluation& evaluation) { evaluation_ = &evaluation; }
  /// True once --stop-at-target ended training (no more epochs may run).
  [[nodiscard]] bool stopped_at_target() const { return stopped_at_target_; }
  /// Where training stopped early (no more epochs may run), if it did.
  [[nodiscard]] const std::optional<StopPoint>& stop() const { return stop_; }
  /// The visit counts' check so far.
  [[nodiscard]] const VisitCheck& visits() const { return visit_check_; }

 private:
  bool step_without_batch(std::span<float> parameters, const StepInfo& info);
  bool evaluate_after_step(const StepInfo& info);
  [[nodiscard]] double training_clock() const;
  [[nodiscard]] float gradient_weight(std::size_t samples) const;
  void record_exchange_slices(double start, const PhaseTimer& before);
  void check_visits(std::uint32_t epoch);

  nn::Model& model_;
  std::unique_ptr<nn::Model> tail_model_;
  std::uint64_t steps_done_ = 0;
  GradientExchange& exchange_;
  WorkerSettings settings_;
  PhaseTimer& timer_;
  TraceRecorder& trace_;
  EpochOrder order_;
  BatchAssembler assembler_;
  std::size_t own_steps_;
  std::vector<std::uint32_t> visit_counts_;
  VisitCheck visit_check_;
  std::optional<StopPoint> stop_;
  std::size_t first_step_ = 0;  // where the next epoch starts (non-zero only when resumed mid-epoch)
  TrainingEvaluation* evaluation_ = nullptr;
  std::uint64_t steps_taken_ = 0;        // every step of this run, with or without a batch (the evaluations' clock)
  double trained_s_ = 0.0;               // training time of the epochs run so far (the evaluations' clock)
  double epoch_started_ = 0.0;           // when the current epoch started
  double evaluated_before_epoch_ = 0.0;  // the evaluation's seconds when it did
  bool stopped_at_target_ = false;
};

}  // namespace psbench::train
