#include <cstdio>
#include <memory>
#include <string>

#include "cli/model_subcommands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "perf/count_list.hpp"
#include "perf/predict.hpp"
#include "perf/prediction_format.hpp"

namespace psbench::cli {
namespace {

struct PredictFlags {
  std::string calib;
  perf::Scenario scenario;
  std::string workers;
  std::string servers = "1";
  std::string io = "sequential";
  std::string read;
  std::string platform = "this";
  std::string kind = "all";
  std::string format = "table";
  std::string input = "1,28,28";
  std::string sim_times = "calibrated";
  std::string out;
  std::uint64_t seed = 1;
};

std::vector<perf::Kind> parse_kinds(const std::string& word) {
  if (word == "all") return {std::begin(perf::kAllKinds), std::end(perf::kAllKinds)};
  for (const perf::Kind kind : perf::kAllKinds) {
    if (word == perf::kind_name(kind)) return {kind};
  }
  throw UserError("--kind '" + word + "' is not one of: ideal, revised, mva, sim, all");
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

void run_predict(PredictFlags& flags) {
  perf::PredictRequest request;
  request.scenario = flags.scenario;
  perf::Scenario& scenario = request.scenario;
  scenario.io = parse_io(flags.io);
  scenario.read = parse_read(flags.read, scenario.io);
  scenario.input = parse_input(flags.input, scenario.input.classes);
  if (scenario.sample_bytes <= 0)
    scenario.sample_bytes = scenario.input.channels * scenario.input.height * scenario.input.width + 1;
  request.workers = perf::parse_count_list(flags.workers, "--workers");
  request.servers = perf::parse_count_list(flags.servers, "--servers");
  request.kinds = parse_kinds(flags.kind);
  request.sim.times = parse_sim_times(flags.sim_times);
  request.sim.seed = flags.seed;
  const perf::OutputFormat format = parse_format(flags.format);
  const perf::Calibration calibration = perf::read_calibration(flags.calib);
  scenario.calib_path = flags.calib;
  scenario.platform = perf::parse_platform(flags.platform, calibration.machine.cores);
  const std::string text = render(format, scenario, perf::predict(calibration, request));
  if (flags.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomically(flags.out, text);
  }
}

}  // namespace

void add_predict(CLI::App& model) {
  auto flags = std::make_shared<PredictFlags>();
  flags->scenario.sample_bytes = 0;
  CLI::App* command =
      model.add_subcommand("predict", "Predict start-up, compute, throughput and the knee at any scale");
  command->add_option("--calib", flags->calib, "calib.json from 'psbench model calibrate'")->required();
  command->add_option("--model", flags->scenario.model, "network spec (mlp:H1,H2,... or cnn)")->capture_default_str();
  command->add_option("--batch", flags->scenario.batch, "samples per worker step")->capture_default_str();
  command->add_option("--samples", flags->scenario.samples, "training samples n")->capture_default_str();
  command->add_option("--epochs", flags->scenario.epochs, "epochs E")->capture_default_str();
  command->add_option("--workers", flags->workers, "LIST of worker counts: 4, 1-16, 2^0-2^17, 1,2,4")->required();
  command->add_option("--servers", flags->servers, "LIST of server counts")->capture_default_str();
  command->add_option("--io", flags->io, "sequential or parallel")->capture_default_str();
  command->add_flag("--pipeline", flags->scenario.pipeline,
                    "workers run as `psbench train --pipeline`: each exchange overlaps the next step");
  command->add_option("--staleness", flags->scenario.staleness,
                      "workers run as `psbench train --staleness S` (sim: the servers hold replies as psbench's do; "
                      "mva and the closed forms ignore the bound: an optimistic bound on throughput)");
  command->add_option("--read", flags->read, "whole or partition (default: whole if sequential, else partition)");
  command
      ->add_option("--platform", flags->platform,
                   "this, rack:NODES:GBIT_PER_S[:LATENCY_US][:server=GBIT_PER_S] (servers' nodes at their own rate), "
                   "bluewaters or FILE.xml")
      ->capture_default_str();
  command->add_option("--ranks-per-node", flags->scenario.ranks_per_node, "ranks per node r (0: all on one node)")
      ->capture_default_str();
  command->add_option("--kind", flags->kind, "ideal, revised, mva, sim or all")->capture_default_str();
  command->add_option("--format", flags->format, "table, json or csv")->capture_default_str();
  command->add_option("--input", flags->input, "sample shape C,H,W")->capture_default_str();
  command->add_option("--classes", flags->scenario.input.classes, "classes K")->capture_default_str();
  command->add_option("--sample-bytes", flags->scenario.sample_bytes, "stored bytes per sample (default C*H*W + 1)");
  command->add_option("--sim-times", flags->sim_times, "sim: calibrated (lognormal) or exponential")
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "sim: seed of the time draws and of the placement")->capture_default_str();
  command->add_option("--out", flags->out, "write the output to this file (atomically) instead of stdout");
  command->callback([flags] { on_first_rank([&] { run_predict(*flags); }); });
}

}  // namespace psbench::cli
