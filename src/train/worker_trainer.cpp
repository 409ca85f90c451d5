#include "train/worker_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/check.hpp"

namespace psbench::train {

WorkerTrainer::WorkerTrainer(const data::Samples& samples, nn::Model& model, GradientExchange& exchange,
                             const WorkerSettings& settings, PhaseTimer& timer, TraceRecorder& trace)
    : model_(model),
      exchange_(exchange),
      settings_(settings),
      timer_(timer),
      trace_(trace),
      order_(samples.count(), settings.seed, settings.worker),
      assembler_(samples, static_cast<std::size_t>(settings.batch), model.input_row_values()),
      own_steps_(steps_per_epoch(samples.count(), static_cast<std::size_t>(settings.batch))),
      visit_counts_(samples.count(), 0U) {
  PSBENCH_CHECK(model.batch() == settings.batch) << "model batch " << model.batch() << " != " << settings.batch;
  const std::size_t tail = samples.count() % static_cast<std::size_t>(settings.batch);
  if (tail != 0) {
    const nn::InputShape input{samples.shape.channels, samples.shape.height, samples.shape.width};
    tail_model_ = std::make_unique<nn::Model>(settings.model_spec, input, samples.num_classes, static_cast<int>(tail),
                                              settings.seed, settings.threads, model.gradients());
  }
}

WorkerTrainer::~WorkerTrainer() = default;

EpochTally WorkerTrainer::run_epoch(std::uint32_t epoch, const StepObserver& observer) {
  EpochTally tally;
  tally.epoch = epoch;
  tally.started_at = monotonic_seconds();
  evaluated_before_epoch_ = evaluation_ != nullptr ? evaluation_->evaluation_s() : 0.0;
  epoch_started_ = tally.started_at;
  order_.shuffle(epoch);
  const auto batch = static_cast<std::size_t>(settings_.batch);
  const std::size_t steps = exchange_.steps_per_epoch(own_steps_);
  const std::span<float> parameters = model_.parameters();
  for (std::size_t step = std::exchange(first_step_, 0); step < steps; ++step) {
    StepInfo info;
    info.epoch = epoch;
    info.step = step;
    if (step >= own_steps_) {
      if (!step_without_batch(parameters, info)) break;
      if (observer) observer(info, steps);
      if (evaluate_after_step(info)) break;
      continue;
    }
    const double compute_start = monotonic_seconds();
    const std::span<const std::uint32_t> indices = order_.batch(step, batch);
    assembler_.fill(indices);
    nn::Model& model = indices.size() == batch ? model_ : *tail_model_;
    if (&model != &model_) std::copy(parameters.begin(), parameters.end(), model.parameters().begin());
    const float weight = gradient_weight(indices.size());
    const PhaseTimer before_step = timer_;
    nn::GradientListener* listener = exchange_.overlap(model_.gradients(), weight == 1.0F, timer_);
    info.loss = model.train_step(assembler_.images(), assembler_.labels(), listener);
    if (!std::isfinite(info.loss)) {  // the loss is at hand: checking it costs nothing
      stop_ = StopPoint{epoch, steps_done_ + 1, info.loss, true};
      exchange_.abort();
      break;
    }
    const std::span<float> gradients = model_.gradients();  // the tail model writes into the same vector
    if (weight != 1.0F) {
      for (float& g : gradients) g *= weight;
    }
    ++steps_done_;
    info.samples = static_cast<std::uint32_t>(indices.size());
    info.last_of_epoch = step + 1 == own_steps_;
    const double compute_end = monotonic_seconds();
    timer_.add(Phase::kCompute, compute_end - compute_start - timer_.total_since(before_step));
    trace_.record(SliceKind::kCompute, compute_start, compute_end);
    for (const std::uint32_t index : indices) ++visit_counts_[index];

    const PhaseTimer before = timer_;
    exchange_.exchange(gradients, parameters, info, timer_);
    record_exchange_slices(compute_end, before);
    if (exchange_.stopped()) {
      stop_ = StopPoint{epoch, steps_done_, info.loss, false};
      break;
    }

    ++tally.steps;
    tally.samples += indices.size();
    tally.loss_sum += info.loss;
    if (observer) observer(info, steps);
    if (evaluate_after_step(info)) break;
  }
  tally.finished_at = monotonic_seconds();
  if (evaluation_ != nullptr) tally.evaluation_s = evaluation_->evaluation_s() - evaluated_before_epoch_;
  trained_s_ += tally.finished_at - tally.started_at - tally.evaluation_s;
  trace_.record(SliceKind::kEpoch, tally.started_at, tally.finished_at, epoch);
  check_visits(epoch);
  return tally;
}

void WorkerTrainer::resume_at(std::uint32_t epoch, std::size_t step) {
  const std::size_t own = std::min(step, own_steps_);
  steps_done_ = static_cast<std::uint64_t>(epoch) * own_steps_ + own;
  std::fill(visit_counts_.begin(), visit_counts_.end(), epoch);
  order_.shuffle(epoch);
  for (std::size_t s = 0; s < own; ++s) {
    for (const std::uint32_t index : order_.batch(s, static_cast<std::size_t>(settings_.batch))) ++visit_counts_[index];
  }
  first_step_ = step;
}

// Sync mode's padded step: joins the allreduce with zeros; false when the run stopped there.
bool WorkerTrainer::step_without_batch(std::span<float> parameters, const StepInfo& info) {
  const double start = monotonic_seconds();
  const PhaseTimer before = timer_;
  exchange_.exchange_without_batch(parameters, info, timer_);
  record_exchange_slices(start, before);
  if (!exchange_.stopped()) return true;
  stop_ = StopPoint{info.epoch, steps_done_, 0.0F, false};
  return false;
}

// --eval-every: counts the step and lets the evaluation run; true when --stop-at-target ends training here, or
// when the evaluation's combination of the workers' models found one that diverged.
bool WorkerTrainer::evaluate_after_step(const StepInfo& info) {
  if (evaluation_ == nullptr) return false;
  ++steps_taken_;
  stopped_at_target_ = evaluation_->after_step(steps_taken_, info.epoch, info.loss, info.samples, training_clock());
  if (exchange_.stopped() && !stop_) {
    stop_ = StopPoint{info.epoch, steps_done_, info.loss, false};
    stopped_at_target_ = false;
    return true;
  }
  return stopped_at_target_;
}

// Training time so far: the time spent in epochs, less the evaluations and the pauses for them. What happens
// between epochs (local mode's evaluation, the epoch records' collectives, checkpoints) is not training either.
double WorkerTrainer::training_clock() const {
  return trained_s_ + monotonic_seconds() - epoch_started_ - (evaluation_->evaluation_s() - evaluated_before_epoch_);
}

// A remainder batch of t samples weighs t/b, and the k-th warm-up step k/warmup_steps.
float WorkerTrainer::gradient_weight(std::size_t samples) const {
  float weight = static_cast<float>(samples) / static_cast<float>(settings_.batch);
  const auto warmup = static_cast<std::uint64_t>(settings_.warmup_steps);
  if (steps_done_ < warmup) weight *= static_cast<float>(steps_done_ + 1) / static_cast<float>(warmup);
  return weight;
}

// The exchange adds its time to the compress, push, pull and update phases in that order; the trace lays the
// increments end to end from the exchange's start.
void WorkerTrainer::record_exchange_slices(double start, const PhaseTimer& before) {
  if (!trace_.enabled()) return;
  double at = start;
  for (const Phase phase : {Phase::kCompress, Phase::kPush, Phase::kPull, Phase::kServerUpdate}) {
    if (timer_.count(phase) == before.count(phase)) continue;
    const double seconds = timer_.seconds(phase) - before.seconds(phase);
    trace_.record(slice_of(phase), at, at + seconds);
    at += seconds;
  }
}

void WorkerTrainer::check_visits(std::uint32_t epoch) {
  if (visit_counts_.empty()) return;
  const auto [low, high] = std::minmax_element(visit_counts_.begin(), visit_counts_.end());
  visit_check_.min = *low;
  visit_check_.max = *high;
  if (*low == epoch + 1 && *high == epoch + 1) ++visit_check_.exact_epochs;
}

}  // namespace psbench::train
