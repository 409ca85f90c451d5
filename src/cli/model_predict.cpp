#include <cstdio>
#include <memory>
#include <string>

#include "cli/model_subcommands.hpp"
#include "cli/scenario_flags.hpp"
#include "common/error.hpp"
#include "perf/count_list.hpp"
#include "perf/predict.hpp"
#include "perf/prediction_format.hpp"

namespace psbench::cli {
namespace {

struct PredictFlags {
  ScenarioFlags shared;
  std::string workers;
  std::string servers = "1";
  std::string io = "sequential";
  std::string read;
  std::string kind = "all";
  std::string format = "table";
  bool servers_given = false;
};

// The kinds of --kind LIST, in kind order, each once; `all` names every kind but sim for the learners it does not
// simulate (those without servers).
std::vector<perf::Kind> parse_kinds(const std::string& text, perf::Learner learner) {
  std::vector<bool> named(std::size(perf::kAllKinds), false);
  for (const std::string& word : split_words(text, "--kind")) {
    bool known = false;
    for (std::size_t k = 0; k < named.size(); ++k) {
      const perf::Kind kind = perf::kAllKinds[k];
      const bool all = word == "all" && (kind != perf::Kind::kSim || learner == perf::Learner::kAsync);
      if (all || word == perf::kind_name(kind)) named[k] = true;
      known = known || word == "all" || word == perf::kind_name(kind);
    }
    if (!known) throw UserError("--kind '" + word + "' is not one of: ideal, revised, mva, sim, all");
  }
  std::vector<perf::Kind> kinds;
  for (std::size_t k = 0; k < named.size(); ++k) {
    if (named[k]) kinds.push_back(perf::kAllKinds[k]);
  }
  return kinds;
}

perf::OutputFormat parse_format(const std::string& word) {
  if (word == "json") return perf::OutputFormat::kJson;
  if (word == "csv") return perf::OutputFormat::kCsv;
  if (word == "table") return perf::OutputFormat::kTable;
  throw UserError("--format '" + word + "' is not one of: table, json, csv");
}

std::string render(perf::OutputFormat format, const perf::Scenario& scenario,
                   const std::vector<perf::Prediction>& predictions) {
  switch (format) {
    case perf::OutputFormat::kJson: return perf::format_json(scenario, predictions);
    case perf::OutputFormat::kCsv: return perf::format_csv(predictions);
    case perf::OutputFormat::kTable: return perf::format_table(predictions);
  }
  return {};
}

// Every I/O mode of --io in turn, each with its --read (or its default), the predictions of one after another's.
void run_predict(PredictFlags& flags) {
  perf::Scenario& scenario = flags.shared.scenario;
  const std::vector<perf::IoMode> io_modes = parse_io_list(flags.io);
  resolve_shape(flags.shared);
  resolve_learner(flags.shared, flags.servers_given);
  perf::PredictRequest request;
  request.workers = perf::parse_count_list(flags.workers, "--workers");
  request.servers = perf::parse_count_list(flags.servers, "--servers");
  request.kinds = parse_kinds(flags.kind, scenario.learner);
  request.sim = sim_options(flags.shared);
  request.interval_samples = flags.shared.interval_samples;
  const perf::OutputFormat format = parse_format(flags.format);
  const perf::Calibration calibration = read_calibration_and_platform(flags.shared);
  std::vector<perf::Prediction> predictions;
  for (const perf::IoMode io : io_modes) {
    request.scenario = scenario;
    request.scenario.io = io;
    request.scenario.read = parse_read(flags.read, io);
    for (const perf::Prediction& p : perf::predict(calibration, request)) predictions.push_back(p);
  }
  write_output(flags.shared, render(format, scenario, predictions));
}

}  // namespace

void add_predict(CLI::App& model) {
  auto flags = std::make_shared<PredictFlags>();
  CLI::App* command =
      model.add_subcommand("predict", "Predict start-up, compute, throughput and the knee at any scale");
  add_scenario_options(*command, flags->shared);
  command->add_option("--workers", flags->workers, "LIST of worker counts: 4, 1-16, 2^0-2^17, 1,2,4")->required();
  command->add_option("--servers", flags->servers, "LIST of server counts")->capture_default_str();
  command->add_option("--io", flags->io, "LIST of I/O modes: sequential, parallel")->capture_default_str();
  command->add_option("--read", flags->read, "whole or partition (default: whole if sequential, else partition)");
  command
      ->add_option("--ranks-per-node", flags->shared.scenario.ranks_per_node, "ranks per node r (0: all on one node)")
      ->capture_default_str();
  command->add_option("--kind", flags->kind, "LIST of kinds: ideal, revised, mva, sim, all")->capture_default_str();
  command->add_option("--format", flags->format, "table, json or csv")->capture_default_str();
  command->callback([flags, command] {
    flags->servers_given = command->count("--servers") > 0;
    on_first_rank([&] { run_predict(*flags); });
  });
}

}  // namespace psbench::cli
