#include "train/roles.hpp"

#include <array>
#include <optional>
#include <vector>

#include "mpi/backoff_wait.hpp"
#include "ps/server.hpp"
#include "ps/shard_columns.hpp"
#include "ps/shard_layout.hpp"
#include "train/checkpoint/checkpoint_writers.hpp"
#include "train/evaluation.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/fault_injection.hpp"
#include "train/gradient_columns.hpp"
#include "train/run_health.hpp"
#include "train/training_evaluation.hpp"
#include "train/worker_trainer.hpp"

namespace psbench::train {
namespace {

ps::SgdConfig sgd_config(const TrainOptions& options) {
  return {static_cast<float>(options.learning_rate), static_cast<float>(options.momentum)};
}

// The block learners' settings, their defaults filled in (with_block_defaults).
BlockSettings block_settings(const TrainOptions& options) {
  BlockSettings settings;
  settings.learner = options.mode == Mode::kBmuf ? BlockLearner::kMomentum : BlockLearner::kAverage;
  settings.block_samples = options.block_samples.value_or(0);
  settings.momentum = static_cast<float>(options.block_momentum.value_or(0.0));
  settings.learning_rate = static_cast<float>(options.block_lr.value_or(1.0));
  settings.nesterov = options.nesterov.value_or(true);
  return settings;
}

// What the servers and workers of an async run are given: the staleness bound (--staleness; absent: unbounded), the
// stall timeout (--stall-timeout) and the spin budget mpi::configure_waits chose for this node.
ps::ProtocolSettings protocol_settings(const TrainOptions& options) {
  return {options.staleness.value_or(-1), options.stall_timeout, mpi::spin_budget()};
}

compress::ColumnLayout model_columns(const RoleContext& context, const RunSetup& setup) {
  return gradient_columns(nn::plan_network(context.options.model_spec, setup.facts.input, setup.facts.num_classes));
}

std::unique_ptr<GradientExchange> make_exchange(const RoleContext& context, const RunSetup& setup,
                                                std::size_t own_steps) {
  switch (context.options.mode) {
    case Mode::kAsync: {
      std::optional<compress::ColumnLayout> columns;
      if (context.options.compress == Compression::kOneBit) columns.emplace(model_columns(context, setup));
      return make_async_exchange(
          context.world, setup.topology, ps::ShardLayout(setup.parameters, setup.topology.servers),
          ps::Links(setup.link.get(), setup.rma.get()), setup.model->parameters(), context.options.pipeline,
          {columns ? &*columns : nullptr, context.options.error_feedback}, protocol_settings(context.options));
    }
    case Mode::kSync:
      if (context.options.compress == Compression::kOneBit) {
        return make_onebit_sync_exchange(setup.workers, setup.model->gradients(), model_columns(context, setup),
                                         sgd_config(context.options), own_steps, context.options.error_feedback);
      }
      return make_sync_exchange(setup.workers, setup.model->gradients(), sgd_config(context.options), own_steps,
                                context.options.bucket_bytes.value_or(kDefaultBucketBytes));
    case Mode::kLocal: return make_local_exchange(setup.parameters, sgd_config(context.options));
    case Mode::kBmuf:
    case Mode::kAverage:
      return make_block_exchange(setup.workers, setup.model->parameters(), sgd_config(context.options),
                                 block_settings(context.options), setup.loaded->samples.count(),
                                 static_cast<std::uint64_t>(context.options.batch));
  }
  return nullptr;
}

EpochRecord record_from(std::uint32_t epoch, std::uint64_t samples, std::uint64_t steps, double loss_sum,
                        double seconds) {
  EpochRecord record;
  record.epoch = epoch;
  record.samples = samples;
  record.steps = steps;
  record.seconds = seconds;
  record.samples_per_s = seconds > 0.0 ? static_cast<double>(samples) / seconds : 0.0;
  record.mean_loss = steps > 0 ? loss_sum / static_cast<double>(steps) : 0.0;
  return record;
}

// Sync mode: the workers' totals of an epoch, for rank 0's line (one small allreduce per epoch).
EpochRecord sync_epoch_record(const RunSetup& setup, const EpochTally& tally) {
  std::array<double, 3> totals{static_cast<double>(tally.samples), static_cast<double>(tally.steps), tally.loss_sum};
  setup.workers.allreduce(std::span<double>(totals), mpi::ReduceOp::kSum);
  // The first worker's evaluations (--eval-every) held every worker at their allreduce: not training time.
  const double seconds = setup.workers.allreduce(tally.finished_at, mpi::ReduceOp::kMax) -
                         setup.workers.allreduce(tally.started_at, mpi::ReduceOp::kMin) -
                         setup.workers.allreduce(tally.evaluation_s, mpi::ReduceOp::kMax);
  return record_from(tally.epoch, static_cast<std::uint64_t>(totals[0]), static_cast<std::uint64_t>(totals[1]),
                     totals[2], seconds);
}

// The shard's slice of the saved velocity (whatever the server count that saved it) and the workers' epochs.
void resume_server(ps::Server& server, const ps::ShardLayout& layout, RunSetup& setup) {
  const ResumeState& resume = *setup.resume;
  const std::span<const float> velocity(resume.velocity);
  std::vector<std::uint32_t> epochs;
  for (const WorkerPosition& position : resume.positions) epochs.push_back(position.epoch);
  server.resume(velocity.subspan(layout.begin(setup.topology.rank), layout.size(setup.topology.rank)), epochs);
  std::vector<float>().swap(setup.resume->velocity);
}

// Resuming: the trainer skips to this worker's position and (sync and local) the exchange takes the saved
// velocity back; returns the first epoch to run.
std::uint32_t resume_worker(const RunSetup& setup, WorkerTrainer& trainer, GradientExchange& exchange) {
  if (!setup.resume) return 0;
  const WorkerPosition position = setup.resume->positions.at(static_cast<std::size_t>(setup.topology.worker_index()));
  trainer.resume_at(position.epoch, static_cast<std::size_t>(position.step));
  exchange.restore_optimizer_velocity(setup.resume->velocity);  // the servers keep it in async mode
  return position.epoch;
}

// Rank 0's progress line after every step, and its checkpoints when it writes them (sync and local mode).
StepObserver step_observer(const RoleContext& context, ReplicaCheckpoints* checkpoints) {
  if (context.world.rank() != 0) return {};
  const auto epochs = static_cast<std::uint32_t>(context.options.epochs);
  return [&context, checkpoints, epochs](const StepInfo& step, std::size_t steps) {
    context.console.progress(step.epoch, epochs, step.step, steps, step.loss);
    if (checkpoints != nullptr) checkpoints->after_step(step, steps);
  };
}

// The trace's counter of the bytes the exchange has moved so far (none in local mode).
void record_bytes(const RoleContext& context, const GradientExchange& exchange) {
  if (context.options.mode == Mode::kLocal) return;
  const ExchangeTotals totals = exchange.totals();
  context.trace.record_bytes(monotonic_seconds(), totals.bytes_sent, totals.bytes_received);
}

}  // namespace

ServerReport run_server(const RoleContext& context, RunSetup& setup) {
  const ps::ShardLayout layout(setup.parameters, setup.topology.servers);
  std::optional<float> delay_compensation;  // --delay-compensation (DC-ASGD); absent: off
  if (context.options.delay_compensation) delay_compensation = static_cast<float>(*context.options.delay_compensation);
  ps::Server server(context.world, setup.topology, layout, setup.initial_parameters, sgd_config(context.options),
                    ps::Links(setup.link.get(), setup.rma.get()), delay_compensation,
                    protocol_settings(context.options));
  std::vector<float>().swap(setup.initial_parameters);  // the server keeps its own shard; free the full copy
  server.limit_samples(static_cast<std::uint32_t>(context.options.batch));
  if (context.options.compress == Compression::kOneBit) {
    const compress::ColumnLayout cut = ps::cut_at_shards(model_columns(context, setup), layout);
    server.take_compressed_pushes(ps::shard_columns(cut, layout, setup.topology.rank),
                                  cut.words_before(layout.begin(setup.topology.rank)));
  }
  server.set_update_hook(server_fault_hook(context.options.fault, setup.topology.rank));
  if (setup.resume) resume_server(server, layout, setup);
  ServerCheckpoints checkpoints(context.options, setup, layout, server);
  server.set_push_observer(
      [&checkpoints](int source, const ps::PushHeader& header) { checkpoints.on_push(source, header); });
  const double serve_start = monotonic_seconds();
  double epoch_start = serve_start;
  double service_before = 0.0;
  const auto on_epoch = [&](const ps::EpochProgress& progress) {
    EpochRecord record;
    const double epoch_seconds = progress.finished_at - epoch_start;
    if (epoch_seconds > 0.0) record.utilization = (progress.service_seconds - service_before) / epoch_seconds;
    service_before = progress.service_seconds;
    record.epoch = progress.epoch;
    record.samples = progress.samples;
    record.seconds = progress.finished_at - epoch_start;
    record.samples_per_s = record.seconds > 0.0 ? static_cast<double>(progress.samples) / record.seconds : 0.0;
    record.mean_loss = progress.mean_loss;
    context.trace.record(SliceKind::kEpoch, epoch_start, progress.finished_at, progress.epoch);
    epoch_start = progress.finished_at;
    if (context.world.rank() == 0) {
      context.live_epochs.push_back(record);
      context.console.epoch_line(record, static_cast<std::uint32_t>(context.options.epochs));
    }
  };
  ServerReport report;
  report.stats = server.serve(on_epoch);
  const double serve_end = monotonic_seconds();
  context.timer.add(Phase::kServerUpdate, report.stats.service_seconds);
  context.timer.add(Phase::kServerIdle, report.stats.idle_seconds);
  context.timer.add(Phase::kCompress, report.stats.compress_seconds);
  context.trace.record(SliceKind::kServe, serve_start, serve_end);
  server.send_final_shard(setup.topology.worker_rank(0));
  if (const std::string line = checkpoint_line(context.options, checkpoints.tally()); !line.empty()) {
    context.console.line(line);
  }
  report.shard = setup.topology.rank;
  report.shard_begin = layout.begin(report.shard);
  report.shard_size = layout.size(report.shard);
  report.delay_compensation_bytes = server.delay_compensation_bytes();
  return report;
}

WorkerReport run_worker(const RoleContext& context, RunSetup& setup) {
  const TrainOptions& options = context.options;
  const data::Samples& samples = setup.loaded->samples;
  const std::size_t own_steps = steps_per_epoch(samples.count(), static_cast<std::size_t>(options.batch));
  const std::unique_ptr<GradientExchange> exchange =
      with_faults(make_exchange(context, setup, own_steps), options.fault, options.straggler, context.world.rank());
  WorkerSettings settings;
  settings.model_spec = options.model_spec;
  settings.batch = options.batch;
  settings.seed = options.seed;
  settings.worker = static_cast<std::uint32_t>(setup.topology.worker_index());
  settings.threads = options.threads;
  settings.warmup_steps = options.warmup_steps;
  WorkerTrainer trainer(samples, *setup.model, *exchange, settings, context.timer, context.trace);
  std::optional<TrainingEvaluation> during;  // --eval-every: the first worker evaluates, every worker may stop
  if (options.eval_every) {
    const bool first = setup.topology.worker_index() == 0;
    during.emplace(options, setup.workers, first ? setup.model.get() : nullptr,
                   first && setup.test ? &*setup.test : nullptr, setup.facts.input, *exchange,
                   setup.model->parameters());
    trainer.evaluate_during_training(*during);
  }
  const std::uint32_t first_epoch = resume_worker(setup, trainer, *exchange);
  const auto epochs = static_cast<std::uint32_t>(options.epochs);
  std::optional<ReplicaCheckpoints> checkpoints;  // sync and local: the first worker writes them alone
  if (options.mode != Mode::kAsync && context.world.rank() == 0) {
    checkpoints.emplace(options, setup, *setup.model, *exchange);
  }
  const StepObserver observer = step_observer(context, checkpoints ? &*checkpoints : nullptr);
  WorkerReport report;
  report.index = setup.topology.worker_index();
  report.samples = samples.count();
  report.first_index = samples.first_index;
  report.load = setup.loaded->timing;
  report.epochs.reserve(epochs);
  for (std::uint32_t epoch = first_epoch; epoch < epochs; ++epoch) {
    const EpochTally tally = trainer.run_epoch(epoch, observer);
    if (trainer.stop()) break;  // every rank learns of it, and no epoch record is made
    report.epochs.push_back(tally);
    EpochRecord record = record_from(epoch, tally.samples, tally.steps, tally.loss_sum,
                                     tally.finished_at - tally.started_at - tally.evaluation_s);
    if (workers_in_lockstep(options.mode)) record = sync_epoch_record(setup, tally);
    if (options.mode == Mode::kLocal) {
      const double start = monotonic_seconds();
      const Evaluation evaluation = evaluate_on(*setup.model, *setup.test, setup.facts.input);
      context.trace.record(SliceKind::kEvaluate, start, monotonic_seconds());
      record.test_accuracy = evaluation.accuracy;
      report.epoch_test_accuracy.push_back(evaluation.accuracy);
      report.final_evaluation = evaluation;
    }
    if (options.mode != Mode::kAsync && context.world.rank() == 0) {
      context.live_epochs.push_back(record);
      context.console.epoch_line(record, epochs);
    }
    record_bytes(context, *exchange);
    if (trainer.stopped_at_target()) break;  // every worker stops at the target together (TrainingEvaluation)
  }
  if (const std::optional<StopPoint>& stop = trainer.stop()) {
    const std::string line = stop_message(*stop, context.world.rank(), report.index, options);
    (stop->own_loss ? report.diverged : report.stopped) = line;
  }
  if (!trainer.stop() || !trainer.stop()->own_loss) exchange->finish();  // abort() already told the servers
  record_bytes(context, *exchange);
  if (during) {  // after the servers heard done: a worker waiting here must not hold back anyone's clock
    during->finish();
    report.curve = during->curve();
  }
  if (checkpoints && !options.checkpoint_path.empty())
    context.console.line(checkpoint_line(options, checkpoints->tally()));
  report.visits = trainer.visits();
  std::uint64_t steps = 0;
  for (const EpochTally& tally : report.epochs) steps += tally.steps;
  if (options.mode != Mode::kLocal) report.exchange = exchange->totals();
  report.pushes = options.mode == Mode::kAsync ? steps * static_cast<std::uint64_t>(setup.topology.servers) : 0;
  return report;
}

}  // namespace psbench::train
