#include "train/training_evaluation.hpp"

#include "common/phase_timer.hpp"
#include "train/evaluation.hpp"

namespace psbench::train {

TrainingEvaluation::TrainingEvaluation(const TrainOptions& options, const mpi::Communicator& workers, nn::Model* model,
                                       const data::Samples* test, const nn::InputShape& input)
    : every_(static_cast<std::uint64_t>(options.eval_every.value_or(0))),
      target_(options.target_accuracy.value_or(0.0)),
      model_(model),
      test_(test),
      input_(input),
      lockstep_(options.mode != Mode::kAsync),
      stop_(workers, lockstep_, options.stop_at_target) {
  if (every_ > 0 && model_ != nullptr && test_ != nullptr) curve_.reserve(64);
}

bool TrainingEvaluation::after_step(std::uint64_t steps, std::uint32_t epoch, double loss, std::uint64_t samples,
                                    double training_s) {
  const bool evaluates = model_ != nullptr && test_ != nullptr;
  if (evaluates && samples > 0) {  // a step without a batch (sync) trained nothing
    loss_sum_ += loss;
    ++losses_;
    samples_ += samples;
  }
  if (every_ == 0) return false;
  if (!lockstep_ && !evaluates) return stop_.stopped_by_first();
  if (steps % every_ != 0) return false;
  if (evaluates) {
    const double start = monotonic_seconds();
    const Evaluation evaluation = evaluate_on(*model_, *test_, input_);
    results::CurvePoint point;
    point.time_s = training_s;
    point.steps = steps;
    point.samples = samples_;
    point.epoch = epoch;
    point.loss = losses_ > 0 ? loss_sum_ / static_cast<double>(losses_) : 0.0;
    point.accuracy = evaluation.accuracy;
    point.test_loss = evaluation.mean_loss;
    curve_.push_back(point);
    loss_sum_ = 0.0;
    losses_ = 0;
    if (target_ > 0.0 && evaluation.accuracy >= target_) reached_ = true;
    evaluation_s_ += monotonic_seconds() - start;
  }
  return stop_.at_evaluation(reached_);
}

}  // namespace psbench::train
