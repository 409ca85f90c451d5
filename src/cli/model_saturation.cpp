#include <cstdio>
#include <memory>
#include <string>

#include "cli/model_subcommands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "perf/count_list.hpp"
#include "perf/saturation/saturation_format.hpp"
#include "results/file_io.hpp"

namespace psbench::cli {
namespace {

struct SaturationFlags {
  std::string bench;
  std::string kind = "all";
  std::string clients;
  std::string times = "measured";
  std::string cpu = "auto";
  std::string format = "table";
  std::string out;
  std::uint64_t seed = 1;
};

std::vector<perf::Kind> parse_saturation_kinds(const std::string& word) {
  if (word == "all") return {perf::Kind::kMva, perf::Kind::kSim};
  if (word == "mva") return {perf::Kind::kMva};
  if (word == "sim") return {perf::Kind::kSim};
  throw UserError("--kind '" + word + "' is not one of: mva, sim, all");
}

perf::TimeDistribution parse_times(const std::string& word) {
  if (word == "measured") return perf::TimeDistribution::kCalibrated;
  if (word == "exponential") return perf::TimeDistribution::kExponential;
  throw UserError("--times '" + word + "' is not one of: measured, exponential");
}

// auto or off, for the flag named.
bool parse_auto_off(const std::string& flag, const std::string& word) {
  if (word == "auto") return true;
  if (word == "off") return false;
  throw UserError(flag + " '" + word + "' is not one of: auto, off");
}

perf::OutputFormat parse_saturation_format(const std::string& word) {
  if (word == "json") return perf::OutputFormat::kJson;
  if (word == "csv") return perf::OutputFormat::kCsv;
  if (word == "table") return perf::OutputFormat::kTable;
  throw UserError("--format '" + word + "' is not one of: table, json, csv");
}

void run_saturation(const SaturationFlags& flags) {
  perf::SaturationRequest request;
  request.kinds = parse_saturation_kinds(flags.kind);
  request.times = parse_times(flags.times);
  request.seed = flags.seed;
  request.cpu_station = parse_auto_off("--cpu", flags.cpu);
  if (!flags.clients.empty()) request.clients = perf::parse_count_list(flags.clients, "--clients");
  const perf::OutputFormat format = parse_saturation_format(flags.format);
  const results::SaturationFile file = results::read_saturation_file(flags.bench);
  const auto comparisons = perf::compare_saturation(file, request);
  std::string text;
  switch (format) {
    case perf::OutputFormat::kJson: text = perf::format_saturation_json(flags.bench, request, comparisons); break;
    case perf::OutputFormat::kCsv: text = perf::format_saturation_csv(comparisons); break;
    case perf::OutputFormat::kTable: text = perf::format_saturation_table(comparisons); break;
  }
  if (flags.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomically(flags.out, text);
  }
}

}  // namespace

void add_saturation(CLI::App& model) {
  auto flags = std::make_shared<SaturationFlags>();
  CLI::App* command = model.add_subcommand(
      "saturation", "Predict bench_server_saturation's curves (MVA, simulation) and compare with the measured ones");
  command->add_option("--bench", flags->bench, "server_saturation.json from bench_server_saturation")->required();
  command->add_option("--kind", flags->kind, "mva, sim or all")->capture_default_str();
  command->add_option("--clients", flags->clients, "LIST of client counts (default: each run's measured k)");
  command->add_option("--times", flags->times, "measured (D's cv; Z and c fixed) or exponential")
      ->capture_default_str();
  command
      ->add_option("--cpu", flags->cpu,
                   "auto (the node's cores as a station where servers + clients outnumber them) or off")
      ->capture_default_str();
  command->add_option("--format", flags->format, "table, json or csv")->capture_default_str();
  command->add_option("--seed", flags->seed, "sim: seed of the time draws")->capture_default_str();
  command->add_option("--out", flags->out, "write the output to this file (atomically) instead of stdout");
  command->callback([flags] { on_first_rank([&] { run_saturation(*flags); }); });
}

}  // namespace psbench::cli
