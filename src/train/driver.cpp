#include "train/driver.hpp"

#include <map>
#include <optional>
#include <string>

#include "common/atomic_file.hpp"
#include "common/phase_timer.hpp"
#include "common/resources.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "mpi/collective_error.hpp"
#include "nn/onednn_info.hpp"
#include "ps/shard_layout.hpp"
#include "train/console.hpp"
#include "train/evaluation.hpp"
#include "train/library_versions.hpp"
#include "train/rank_report.hpp"
#include "train/results.hpp"
#include "train/roles.hpp"
#include "train/run_setup.hpp"
#include "train/trace_recorder.hpp"

namespace psbench::train {
namespace {

// Async mode: every server sends its final shard (run_server does) straight into the evaluating worker's
// parameter vector.
void receive_final_parameters(const mpi::Communicator& world, const RunSetup& setup, int evaluator) {
  if (setup.topology.servers == 0 || world.rank() != evaluator) return;
  const ps::ShardLayout layout(setup.parameters, setup.topology.servers);
  const std::span<float> parameters = setup.model->parameters();
  for (int shard = 0; shard < setup.topology.servers; ++shard) {
    PSBENCH_MPI_CALL(MPI_Recv(parameters.data() + layout.begin(shard), static_cast<int>(layout.size(shard)), MPI_FLOAT,
                              setup.topology.server_rank(shard), kTagFinalShard, world.native(), MPI_STATUS_IGNORE));
  }
}

std::string track_name(const ps::Topology& topology) {
  const std::string rank = "rank " + std::to_string(topology.rank);
  if (topology.is_server()) return rank + " (server " + std::to_string(topology.rank) + ")";
  return rank + " (worker " + std::to_string(topology.worker_index()) + ")";
}

nlohmann::json environment_json(const std::vector<nlohmann::json>& per_rank, const RunSetup& setup,
                                const TrainOptions& options) {
  nlohmann::json hosts = nlohmann::json::array();
  std::map<std::string, int> ranks_per_host;
  std::map<std::string, int> cores_per_host;
  for (const auto& entry : per_rank) {
    const auto host = entry["host"].get<std::string>();
    if (ranks_per_host[host]++ == 0) hosts.push_back(host);
    cores_per_host[host] = entry["cores"].get<int>();
  }
  return {{"hosts", hosts},
          {"ranks", per_rank.size()},
          {"ranks_per_host", ranks_per_host},
          {"cores", per_rank.empty() ? 0 : per_rank.front()["cores"].get<int>()},
          {"cores_per_host", cores_per_host},
          {"servers", setup.topology.servers},
          {"workers", setup.topology.workers()},
          {"threads_per_rank", options.threads},
          {"wait_spin_us", mpi::spin_budget().count()},
          {"cpu", cpu_model_name()},
          {"onednn_isa", nn::onednn_isa()},
          {"libraries", library_versions()}};
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

std::string server_line(const nlohmann::json& server) {
  char text[256];
  std::snprintf(
      text, sizeof text, "servers: %llu updates, %.1f updates/s, utilisation %.1f%%, staleness mean %.2f max %llu",
      static_cast<unsigned long long>(server["updates"].get<std::uint64_t>()), server["updates_per_s"].get<double>(),
      server["utilization"].get<double>() * 100.0, server["staleness"]["mean"].get<double>(),
      static_cast<unsigned long long>(server["staleness"]["max"].get<std::uint64_t>()));
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

}  // namespace

TrainOutcome run_training(const mpi::Communicator& world, const TrainOptions& options) {
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
  trace.record(SliceKind::kTotal, origin, train_end);

  const int evaluator = setup.topology.worker_rank(0);
  receive_final_parameters(world, setup, evaluator);
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

  nlohmann::json entry =
      rank_report_json(world.rank(), host_name(), seconds_of(timer), worker, server, evaluation, origin);
  entry["cores"] = online_cores();
  if (setup.model) entry["flops_per_step"] = setup.model->flops_per_step();
  if (world.rank() == evaluator) {
    const std::span<const float> parameters = setup.model->parameters();
    outcome.final_parameters.assign(parameters.begin(), parameters.end());
    entry["evaluation"]["parameter_checksum"] = checksum_of(outcome.final_parameters);
  }
  const std::vector<std::string> reports = world.gather(entry.dump(), 0);
  const std::vector<std::string> traces =
      world.gather(trace.enabled() ? trace.events_json(world.rank(), track_name(setup.topology), origin) : "", 0);

  mpi::run_collectively(world, [&] {
    if (world.rank() != 0) return;
    std::vector<nlohmann::json> per_rank;
    per_rank.reserve(reports.size());
    for (const std::string& report : reports) per_rank.push_back(nlohmann::json::parse(report));
    RunFacts facts;
    facts.options = options;
    facts.parameters = setup.parameters;
    facts.total_samples = setup.facts.total_samples;
    facts.live_epochs = live_epochs;
    for (const auto& rank_entry : per_rank) {
      if (rank_entry.contains("flops_per_step")) facts.flops_per_step = rank_entry["flops_per_step"].get<double>();
      if (rank_entry.contains("evaluation")) {
        facts.parameter_checksum = rank_entry["evaluation"]["parameter_checksum"].get<std::string>();
      }
    }
    outcome.results = assemble_results(facts, per_rank, environment_json(per_rank, setup, options));
    write_file_atomically(options.out_path, outcome.results.dump(2) + "\n");
    if (!options.trace_path.empty()) write_file_atomically(options.trace_path, trace_document(traces, options));
    console.summary(max_phases(per_rank), final_evaluation(per_rank));
    if (setup.topology.servers > 0) console.line(server_line(outcome.results["server"]));
    console.line("results: " + options.out_path + (options.trace_path.empty() ? "" : ", trace: " + options.trace_path));
  });
  return outcome;
}

}  // namespace psbench::train
