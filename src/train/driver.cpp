#include "train/driver.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "common/atomic_file.hpp"
#include "common/float_mode.hpp"
#include "common/phase_timer.hpp"
#include "mpi/call.hpp"
#include "mpi/collective_error.hpp"
#include "ps/shard_layout.hpp"
#include "ps/staleness.hpp"
#include "results/binary_codec.hpp"
#include "results/file_io.hpp"
#include "train/console.hpp"
#include "train/evaluation.hpp"
#include "train/rank_report.hpp"
#include "train/results.hpp"
#include "train/roles.hpp"
#include "train/run_environment.hpp"
#include "train/run_health.hpp"
#include "train/run_setup.hpp"
#include "train/trace_recorder.hpp"

namespace psbench::train {
namespace {

std::string track_name(const ps::Topology& topology) {
  const std::string rank = "rank " + std::to_string(topology.rank);
  if (topology.is_server()) return rank + " (server " + std::to_string(topology.rank) + ")";
  return rank + " (worker " + std::to_string(topology.worker_index()) + ")";
}

std::string start_line(const TrainOptions& options, const RunSetup& setup, double init_seconds) {
  std::string roles;
  if (options.mode == Mode::kAsync) {
    roles = std::to_string(setup.topology.servers) + " server(s) + " + std::to_string(setup.topology.workers()) +
            " worker(s)";
  } else {
    roles = std::to_string(setup.topology.workers()) + " worker(s)";
  }
  char text[512];
  std::snprintf(text, sizeof text,
                "psbench train: %s, %s; model %s, P = %zu parameters (%.2f MB); batch %d, %d epochs, lr %g, "
                "momentum %g, warm-up %d steps; %llu training samples; init %.2f s",
                std::string(mode_name(options.mode)).c_str(), roles.c_str(), options.model_spec.c_str(),
                setup.parameters, static_cast<double>(setup.parameters * sizeof(float)) / 1e6, options.batch,
                options.epochs, options.learning_rate, options.momentum, options.warmup_steps,
                static_cast<unsigned long long>(setup.facts.total_samples), init_seconds);
  return text;
}

std::string server_line(const results::ServerSummary& server) {
  char text[256];
  std::snprintf(text, sizeof text,
                "servers: %llu updates, %.1f updates/s, utilisation %.1f%%, staleness mean %.2f max %llu",
                static_cast<unsigned long long>(server.updates), server.updates_per_s, server.utilization * 100.0,
                server.staleness.mean, static_cast<unsigned long long>(server.staleness.max));
  return text;
}

// The bounded-staleness line: the bound s implies, the largest staleness seen, and the workers' clocks over every
// server: replies held back and the seconds they waited, the widest spread of the clocks after a push, and the
// largest lead over the slowest of a worker whose reply went out (at most s).
std::string clocks_line(const results::ResultsFile& file, const TrainOptions& options) {
  const results::ClockStats clocks = file.server.clocks.value_or(results::ClockStats{});
  const auto workers = static_cast<std::uint64_t>(file.env.workers);
  char text[320];
  std::snprintf(text, sizeof text,
                "staleness bound s = %d: at most %llu versions, max %llu; %llu replies held %.3f s in all; clocks: "
                "spread max %llu, lead of an answered worker max %llu",
                *options.staleness,
                static_cast<unsigned long long>(ps::staleness_bound(*options.staleness, workers, options.pipeline)),
                static_cast<unsigned long long>(file.server.staleness.max),
                static_cast<unsigned long long>(clocks.held_replies), clocks.held_s,
                static_cast<unsigned long long>(clocks.max_clock_spread),
                static_cast<unsigned long long>(clocks.max_lead));
  return text;
}

// The time-to-target line: when the run first reached --target-accuracy, or that it did not.
std::string target_line(const results::ResultsFile& file, double target) {
  char text[128];
  if (file.train.time_to_target_s) {
    std::snprintf(text, sizeof text, "time to %.4g%% test accuracy: %.3f s of training", target * 100.0,
                  *file.train.time_to_target_s);
  } else {
    std::snprintf(text, sizeof text, "time to %.4g%% test accuracy: not reached", target * 100.0);
  }
  return text;
}

// The exchange's bytes per worker step, over every worker's run (none in local mode).
std::optional<std::string> exchange_line(const std::vector<results::RankEntry>& per_rank) {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t steps = 0;
  int workers = 0;
  for (const results::RankEntry& entry : per_rank) {
    if (!entry.worker || !entry.worker->exchange || !entry.worker->exchange->bytes_sent) continue;
    sent += *entry.worker->exchange->bytes_sent;
    received += entry.worker->exchange->bytes_received.value_or(0);
    steps += entry.worker->steps;
    ++workers;
  }
  if (steps == 0) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text, "exchange: %.0f bytes sent, %.0f received per step and worker (%d worker(s))",
                static_cast<double>(sent) / static_cast<double>(steps),
                static_cast<double>(received) / static_cast<double>(steps), workers);
  return text;
}

std::string trace_document(const std::vector<std::string>& rank_events, const TrainOptions& options) {
  std::string document = R"({"displayTimeUnit":"ms","otherData":{"tool":"psbench train","config":)" +
                         options_to_json(options).dump() + R"(},"traceEvents":[)";
  bool first = true;
  for (const std::string& events : rank_events) {
    if (events.empty()) continue;
    if (!first) document += ',';
    document += events;
    first = false;
  }
  document += "]}\n";
  return document;
}

results::ResumedFrom resumed_from(const ResumeState& resume) {
  results::ResumedFrom from;
  from.file = resume.path;
  from.epoch = resume.epoch;
  from.step = resume.step;
  from.servers = resume.servers;
  for (const WorkerPosition& position : resume.positions) {
    from.worker_epochs.push_back(position.epoch);
    from.worker_steps.push_back(position.step);
  }
  return from;
}

std::string resume_line(const ResumeState& resume, const ps::Topology& topology) {
  std::string line = "resumed from " + resume.path + ": " + std::to_string(resume.epoch) + " epoch(s) done, step " +
                     std::to_string(resume.step);
  if (topology.servers > 0 && resume.servers != topology.servers) {
    line += "; re-sharded from " + std::to_string(resume.servers) + " to " + std::to_string(topology.servers) +
            " server(s)";
  }
  return line;
}

// Rank 0: the results file from every rank's entry, the trace, the summary and any warning; returns the
// results document as written.
nlohmann::json write_outputs(const std::vector<std::string>& reports, const std::vector<std::string>& traces,
                             const RunSetup& setup, const TrainOptions& options,
                             const std::vector<EpochRecord>& live_epochs, Console& console) {
  std::vector<results::RankEntry> per_rank;
  per_rank.reserve(reports.size());
  for (const std::string& report : reports) per_rank.push_back(results::decode_rank_entry(report));
  RunFacts facts;
  facts.options = options;
  facts.parameters = setup.parameters;
  facts.total_samples = setup.facts.total_samples;
  facts.live_epochs = live_epochs;
  if (setup.resume) facts.resumed_from = resumed_from(*setup.resume);
  for (const results::RankEntry& rank_entry : per_rank) {
    if (rank_entry.flops_per_step) facts.flops_per_step = *rank_entry.flops_per_step;
    if (rank_entry.evaluation) facts.parameter_checksum = rank_entry.evaluation->parameter_checksum;
  }
  results::Environment env =
      run_environment(per_rank, setup.topology.servers, setup.topology.workers(), options.threads);
  const results::ResultsFile file = assemble_results(facts, std::move(per_rank), std::move(env));
  results::write_results_file(options.out_path, file);
  if (!options.trace_path.empty()) write_file_atomically(options.trace_path, trace_document(traces, options));
  console.summary(file.phases.seconds, final_evaluation(file.per_rank));
  if (const std::optional<std::string> line = exchange_line(file.per_rank)) console.line(*line);
  if (setup.topology.servers > 0) console.line(server_line(file.server));
  if (options.staleness) console.line(clocks_line(file, options));
  if (options.target_accuracy) console.line(target_line(file, *options.target_accuracy));
  if (const auto warning =
          chance_level_warning(file.train.final_loss, file.train.test_loss, setup.facts.num_classes, options)) {
    std::fprintf(stderr, "psbench: warning: %s\n", warning->c_str());  // even with --quiet: the run is void
  }
  console.line("results: " + options.out_path + (options.trace_path.empty() ? "" : ", trace: " + options.trace_path));
  nlohmann::json document;
  to_json(document, file);
  return document;
}

}  // namespace

TrainOutcome run_training(const mpi::Communicator& world, const TrainOptions& given) {
  const TrainOptions options = with_block_defaults(given, world.size());  // every rank is a worker where they apply
  flush_denormals_to_zero();  // before oneDNN starts any thread: a decaying momentum must not run 3-5x slower
  world.barrier();
  const double origin = monotonic_seconds();
  PhaseTimer timer;
  TraceRecorder trace(options.trace_path.empty() ? 0 : TraceRecorder::capacity_for(world.size()));
  Console console(world.rank() == 0 && !options.quiet, stdout_is_terminal());

  RunSetup setup = set_up_run(world, options, timer, trace);
  const double init_end = monotonic_seconds();
  timer.add(Phase::kInitTotal, init_end - origin);
  trace.record(SliceKind::kInitTotal, origin, init_end);
  console.line(start_line(options, setup, init_end - origin));
  if (setup.resume) console.line(resume_line(*setup.resume, setup.topology));
  if (const auto warning = block_overshoot_warning(options, setup.topology.workers());
      warning && world.rank() == 0 && !options.quiet) {
    std::fprintf(stderr, "psbench: warning: %s\n", warning->c_str());
  }

  std::vector<EpochRecord> live_epochs;
  const RoleContext context{world, options, timer, trace, console, live_epochs};
  std::optional<ServerReport> server;
  std::optional<WorkerReport> worker;
  if (setup.topology.is_server()) {
    server = run_server(context, setup);
  } else {
    worker = run_worker(context, setup);
  }
  const double train_end = monotonic_seconds();
  timer.add(Phase::kTotal, train_end - origin);
  // Every rank reaches this point, whether its run diverged or not: the RMA windows are freed collectively here (a
  // run that ends with an error below would otherwise finalize MPI with a window still open, which MPICH's UCX
  // aborts on).
  setup.rma.reset();
  trace.record(SliceKind::kTotal, origin, train_end);

  // A non-finite loss anywhere ends the run here, on every rank at once, before any results are made.
  stop_if_any_rank_stopped(world, worker ? worker->diverged : std::nullopt, worker ? worker->stopped : std::nullopt);
  const int evaluator = setup.topology.worker_rank(0);
  TrainOutcome outcome;
  std::optional<Evaluation> evaluation;
  mpi::run_collectively(world, [&] {
    if (world.rank() != evaluator) return;
    if (worker && worker->final_evaluation) {  // local mode evaluated the final parameters after the last epoch
      evaluation = worker->final_evaluation;
      return;
    }
    const double start = monotonic_seconds();
    std::optional<data::Samples> test_split;
    if (!setup.test) test_split = data::load_split(options.data_path, "test");
    evaluation = evaluate_on(*setup.model, setup.test ? *setup.test : *test_split, setup.facts.input);
    const double end = monotonic_seconds();
    evaluation->seconds = end - start;
    trace.record(SliceKind::kEvaluate, start, end);
  });

  results::RankEntry entry = rank_entry(world.rank(), seconds_of(timer), worker, server, evaluation, origin);
  if (setup.model) entry.flops_per_step = setup.model->flops_per_step();
  if (world.rank() == evaluator) {
    const std::span<const float> parameters = setup.model->parameters();
    outcome.final_parameters.assign(parameters.begin(), parameters.end());
    entry.evaluation->parameter_checksum = checksum_of(outcome.final_parameters);
  }
  // Typed values cross ranks as compact bytes (never as JSON text parsed back).
  const std::vector<std::string> reports = world.gather(results::encode_rank_entry(entry), 0);
  const std::vector<std::string> traces =
      world.gather(trace.enabled() ? trace.events_json(world.rank(), track_name(setup.topology), origin) : "", 0);

  mpi::run_collectively(world, [&] {
    if (world.rank() == 0) outcome.results = write_outputs(reports, traces, setup, options, live_epochs, console);
  });
  return outcome;
}

}  // namespace psbench::train
