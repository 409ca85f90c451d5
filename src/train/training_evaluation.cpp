#include "train/training_evaluation.hpp"

#include <algorithm>

#include "common/phase_timer.hpp"
#include "train/evaluation.hpp"

namespace psbench::train {
namespace {

bool is_block_mode(Mode mode) { return mode == Mode::kBmuf || mode == Mode::kAverage; }

}  // namespace

TrainingEvaluation::TrainingEvaluation(const TrainOptions& options, const mpi::Communicator& workers, nn::Model* model,
                                       const data::Samples* test, const nn::InputShape& input,
                                       GradientExchange& exchange, std::span<float> parameters)
    : every_(static_cast<std::uint64_t>(options.eval_every.value_or(0))),
      target_(options.target_accuracy.value_or(0.0)),
      slow_factor_(options.slow_evaluation),
      model_(model),
      test_(test),
      input_(input),
      lockstep_(options.mode != Mode::kAsync),
      exchange_(exchange),
      parameters_(parameters),
      combined_(every_ > 0 && is_block_mode(options.mode) ? parameters.size() : 0),
      stop_(workers, lockstep_, options.stop_at_target, every_ > 0) {
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
  if (!lockstep_ && !evaluates) return stop_.after_others_step(evaluation_s_);
  if (steps % every_ != 0) return false;
  const double start = monotonic_seconds();
  stop_.pause_others();
  const bool combined = !combined_.span().empty() && exchange_.combined_model(parameters_, combined_.span());
  if (exchange_.stopped()) {  // a worker diverged and joined the combination with NaN: no verdict, all stop
    evaluation_s_ += monotonic_seconds() - start;
    return false;
  }
  if (evaluates) evaluate(steps, epoch, training_s, combined);
  const bool stop = stop_.at_evaluation(reached_);
  evaluation_s_ += monotonic_seconds() - start;
  return stop;
}

// The first worker's evaluation of its parameters, or of the combined model swapped into them for the while.
void TrainingEvaluation::evaluate(std::uint64_t steps, std::uint32_t epoch, double training_s, bool combined) {
  const std::span<float> held = combined_.span();
  if (combined) std::swap_ranges(parameters_.begin(), parameters_.end(), held.begin());
  const Evaluation evaluation = evaluate_on(*model_, *test_, input_);
  // --slow-evaluation F: the evaluation runs F times in all, busy as a slower evaluation would be (not asleep: an
  // idle core would slow the next steps for reasons of its own).
  for (int again = 1; again < slow_factor_; ++again) (void)evaluate_on(*model_, *test_, input_);
  if (combined) std::swap_ranges(parameters_.begin(), parameters_.end(), held.begin());
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
}

}  // namespace psbench::train
