#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "perf/calibration.hpp"
#include "perf/scenario.hpp"
#include "perf/sim/simulation.hpp"
#include "train/train_options.hpp"

namespace psbench::cli {

/// The flags `model predict` and `model plan` share: the calibration, the run, its platform, the simulation's
/// options and where the output goes.
struct ScenarioFlags {
  std::string calib;                       ///< --calib
  perf::Scenario scenario;                 ///< --model, --batch, --samples, --epochs, --pipeline, --staleness, ...
  std::string platform = "this";           ///< --platform
  std::string input = "1,28,28";           ///< --input C,H,W
  std::string sim_times = "calibrated";    ///< --sim-times
  std::uint64_t seed = 1;                  ///< --seed
  int interval_samples = 20;               ///< --interval-samples
  std::string out;                         ///< --out, empty for stdout
  train::Mode mode = train::Mode::kAsync;  ///< --mode, as train spells it (local excepted)
  train::Compression compress = train::Compression::kNone;  ///< --compress
  std::optional<std::uint64_t> block_samples;               ///< --block-samples (bmuf, average; train's default)
};

/// Registers the shared flags on a subcommand.
void add_scenario_options(CLI::App& command, ScenarioFlags& flags);

/// Completes flags.scenario's learner from --mode, --compress and --block-samples (train's default block where not
/// given), after refusing every combination `psbench train` refuses, with train's words (servers_given: --servers
/// was on the command line). Throws UserError.
void resolve_learner(ScenarioFlags& flags, bool servers_given);

/// Completes flags.scenario from the shape flags (--input, --classes, --sample-bytes's default C*H*W + 1).
void resolve_shape(ScenarioFlags& flags);

/// Reads --calib and parses --platform against its cores into flags.scenario. Throws UserError for either.
perf::Calibration read_calibration_and_platform(ScenarioFlags& flags);

/// The simulation's options from --sim-times and --seed.
perf::SimOptions sim_options(const ScenarioFlags& flags);

/// Writes text to --out atomically, or to stdout.
void write_output(const ScenarioFlags& flags, const std::string& text);

}  // namespace psbench::cli
