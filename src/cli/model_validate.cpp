#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/model_subcommands.hpp"
#include "common/error.hpp"
#include "perf/validation.hpp"

namespace psbench::cli {
namespace {

struct ValidateFlags {
  std::string calib;
  std::vector<std::string> runs;
  std::string kind = "all";
  double max_mape = -1.0;
  std::string platform = "this";
  std::string input = "1,28,28";
  int classes = 10;
  std::string format = "table";
  int interval_samples = 20;
  std::uint64_t seed = 1;
};

std::vector<perf::Kind> kinds_of(const std::string& word) {
  if (word == "all") return {std::begin(perf::kAllKinds), std::end(perf::kAllKinds)};
  if (word == "none") return {};
  for (const perf::Kind kind : perf::kAllKinds) {
    if (word == perf::kind_name(kind)) return {kind};
  }
  throw UserError("--kind '" + word + "' is not one of: ideal, revised, mva, sim, all, none");
}

void run_validate(const ValidateFlags& flags) {
  if (flags.max_mape >= 0.0 && (flags.kind == "all" || flags.kind == "none"))
    throw UserError("--max-mape needs one --kind (ideal, revised, mva or sim) to judge");
  perf::ValidateOptions options;
  options.kinds = kinds_of(flags.kind);
  if (flags.calib.empty() && !options.kinds.empty())
    throw UserError("--calib is required: give calib.json, or --kind none for the measured figures alone");
  options.platform = flags.platform;
  options.input = parse_input(flags.input, flags.classes);
  options.interval_samples = flags.interval_samples;
  options.seed = flags.seed;
  if (flags.format != "table" && flags.format != "json")
    throw UserError("--format '" + flags.format + "' is not one of: table, json");
  if (flags.runs.empty()) throw UserError("validate: give one or more results files of psbench train");
  // --kind none predicts nothing, so it needs no calibration.
  const perf::Calibration calibration = flags.calib.empty() ? perf::Calibration{} : perf::read_calibration(flags.calib);
  const perf::Validation validation = perf::validate_runs(calibration, flags.runs, options);
  const std::string text = flags.format == "json" ? perf::format_validation_json(validation, options.kinds)
                                                  : perf::format_validation(validation, options.kinds);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (flags.max_mape < 0.0) return;
  const double mape = validation.errors.at(options.kinds.front()).at("total").mean;
  if (mape > flags.max_mape) {
    char text[160];
    std::snprintf(text, sizeof text, "%s misses --max-mape: total-time MAPE %.1f%% > %.1f%%", flags.kind.c_str(), mape,
                  flags.max_mape);
    throw UserError(text);
  }
}

}  // namespace

void add_validate(CLI::App& model) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* command = model.add_subcommand("validate", "Compare predictions with measured runs (MAPE per kind)");
  command->add_option("--calib", flags->calib, "calib.json from 'psbench model calibrate' (not with --kind none)");
  command->add_option("runs", flags->runs, "results files of psbench train (async mode)");
  command->add_option("--kind", flags->kind, "ideal, revised, mva, sim, all, or none (the measured figures alone)")
      ->capture_default_str();
  command->add_option("--max-mape", flags->max_mape, "fail (exit 2) when --kind's total-time MAPE exceeds this (%)");
  command->add_option("--platform", flags->platform, "where the runs ran (this, rack:..., FILE.xml)")
      ->capture_default_str();
  command->add_option("--input", flags->input, "sample shape C,H,W of the runs' data")->capture_default_str();
  command->add_option("--classes", flags->classes, "classes K of the runs' data")->capture_default_str();
  command
      ->add_option("--interval-samples", flags->interval_samples,
                   "calibrations drawn for each configuration's 80 % intervals (0: none, no coverage)")
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "seed of the intervals' draws and of the sim")->capture_default_str();
  command->add_option("--format", flags->format, "table or json (docs/formats.md#validate-json)")
      ->capture_default_str();
  command->callback([flags] { on_first_rank([&] { run_validate(*flags); }); });
}

}  // namespace psbench::cli
