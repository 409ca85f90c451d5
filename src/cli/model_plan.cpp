#include <memory>
#include <string>

#include "cli/model_subcommands.hpp"
#include "cli/scenario_flags.hpp"
#include "common/error.hpp"
#include "perf/plan.hpp"
#include "perf/plan_format.hpp"

namespace psbench::cli {
namespace {

struct PlanFlags {
  ScenarioFlags shared;
  perf::PlanRequest request;  ///< --nodes, --confirm, --sim-max-pushes; the rest filled in from shared
  std::string format = "table";
};

void run_plan(PlanFlags& flags) {
  if (flags.format != "table" && flags.format != "json")
    throw UserError("--format '" + flags.format + "' is not one of: table, json");
  perf::PlanRequest& request = flags.request;
  if (request.confirm < 0) throw UserError("--confirm " + std::to_string(request.confirm) + " is below 0");
  resolve_shape(flags.shared);
  resolve_learner(flags.shared, false);  // plan chooses the servers: it has no --servers
  if (flags.shared.scenario.learner != perf::Learner::kAsync) {
    throw UserError(std::string("model plan searches the parameter servers of --mode async; --mode ") +
                    perf::learner_name(flags.shared.scenario.learner) +
                    " has none: compare worker counts with 'psbench model predict --mode " +
                    perf::learner_name(flags.shared.scenario.learner) + "'");
  }
  request.sim = sim_options(flags.shared);
  request.interval_samples = flags.shared.interval_samples;
  const perf::Calibration calibration = read_calibration_and_platform(flags.shared);
  request.scenario = flags.shared.scenario;
  const perf::Plan plan = perf::plan(calibration, request);
  write_output(flags.shared,
               flags.format == "json" ? perf::format_plan_json(request, plan) : perf::format_plan_table(request, plan));
}

}  // namespace

void add_plan(CLI::App& model) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* command = model.add_subcommand(
      "plan", "Choose servers, workers, ranks per node and I/O mode within a node budget, and name the bottleneck");
  add_scenario_options(*command, flags->shared);
  command->add_option("--nodes", flags->request.nodes, "the node budget N (1 on --platform this)")->required();
  command->add_option("--confirm", flags->request.confirm, "simulate this many of the listed configurations (0: none)")
      ->capture_default_str();
  command
      ->add_option("--sim-max-pushes", flags->request.sim_max_pushes,
                   "simulate only configurations of at most this many shard pushes (W x S x steps)")
      ->capture_default_str();
  command->add_option("--format", flags->format, "table or json (docs/formats.md#plan-json)")->capture_default_str();
  command->callback([flags] { on_first_rank([&] { run_plan(*flags); }); });
}

}  // namespace psbench::cli
