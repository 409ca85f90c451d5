#include "cli/scenario_flags.hpp"

#include <cstdio>
#include <map>

#include "cli/choice.hpp"
#include "cli/model_subcommands.hpp"
#include "common/atomic_file.hpp"

namespace psbench::cli {

void add_scenario_options(CLI::App& command, ScenarioFlags& flags) {
  flags.scenario.sample_bytes = 0;
  command.add_option("--calib", flags.calib, "calib.json from 'psbench model calibrate'")->required();
  command.add_option("--model", flags.scenario.model, "network spec (mlp:H1,H2,... or cnn)")->capture_default_str();
  command.add_option("--batch", flags.scenario.batch, "samples per worker step")->capture_default_str();
  command.add_option("--samples", flags.scenario.samples, "training samples n")->capture_default_str();
  command.add_option("--epochs", flags.scenario.epochs, "epochs E")->capture_default_str();
  command.add_flag("--pipeline", flags.scenario.pipeline,
                   "workers run as `psbench train --pipeline`: each exchange overlaps the next step");
  command.add_option("--staleness", flags.scenario.staleness,
                     "workers run as `psbench train --staleness S` (sim: the servers hold replies as psbench's do; "
                     "mva and the closed forms ignore the bound: an optimistic bound on throughput)");
  command.add_flag("--delay-compensation", flags.scenario.delay_compensation,
                   "servers run as `psbench train --delay-compensation`: D_s is the DC-ASGD update's own fit "
                   "(BM_DelayCompensatedUpdate)");
  command.add_option("--mode", flags.mode, "workers run as `psbench train --mode`: async | sync | bmuf | average")
      ->transform(choice({train::Mode::kAsync, train::Mode::kSync, train::Mode::kBmuf, train::Mode::kAverage},
                         train::mode_name))
      ->default_str(std::string(train::mode_name(flags.mode)));
  command
      .add_option("--compress", flags.compress,
                  "workers run as `psbench train --compress`: none | onebit (1-bit SGD; async and sync)")
      ->transform(choice({train::Compression::kNone, train::Compression::kOneBit}, train::compression_name))
      ->default_str(std::string(train::compression_name(flags.compress)));
  command
      .add_option("--intra-node", flags.scenario.intra_node,
                  "workers run as `psbench train --intra-node` on `this`: shared-memory | messages | rma (the exchange "
                  "takes that path's push/pull benchmark)")
      ->check(CLI::IsMember({"shared-memory", "messages", "rma"}))
      ->capture_default_str();
  command.add_option("--block-samples", flags.block_samples,
                     "bmuf and average: samples each worker trains on between two synchronisations (train's default)");
  command
      .add_option("--platform", flags.platform,
                  "this, rack:NODES:GBIT_PER_S[:LATENCY_US][:server=GBIT_PER_S] (servers' nodes at their own rate), "
                  "bluewaters or FILE.xml")
      ->capture_default_str();
  command.add_option("--input", flags.input, "sample shape C,H,W")->capture_default_str();
  command.add_option("--classes", flags.scenario.input.classes, "classes K")->capture_default_str();
  command.add_option("--sample-bytes", flags.scenario.sample_bytes, "stored bytes per sample (default C*H*W + 1)");
  command.add_option("--sim-times", flags.sim_times, "sim: calibrated (lognormal) or exponential")
      ->capture_default_str();
  command.add_option("--seed", flags.seed, "seed of the sim's time draws and placement, and of the intervals' draws")
      ->capture_default_str();
  command
      .add_option("--interval-samples", flags.interval_samples,
                  "calibrations drawn from the calibration's spread for each time's 80 % interval (0: no intervals)")
      ->capture_default_str();
  command.add_option("--test-samples", flags.scenario.test_samples, "test samples of the final evaluation")
      ->capture_default_str();
  command.add_option("--out", flags.out, "write the output to this file (atomically) instead of stdout");
}

void resolve_learner(ScenarioFlags& flags, bool servers_given) {
  perf::Scenario& scenario = flags.scenario;
  train::TrainOptions options;  // what train would be given, so that train's own checks refuse what it refuses
  options.data_path = "data.h5";
  options.out_path = "results.json";
  options.model_spec = scenario.model;
  options.batch = scenario.batch;
  options.epochs = scenario.epochs;
  options.mode = flags.mode;
  options.compress = flags.compress;
  options.block_samples = flags.block_samples;
  options.servers_given = servers_given;
  options.pipeline = scenario.pipeline;
  if (scenario.staleness >= 0) options.staleness = scenario.staleness;
  if (scenario.delay_compensation) options.delay_compensation = 0.0;  // predict takes no lambda: any passes
  train::validate_options(options, 2);
  options = train::with_block_defaults(options, 1);
  const std::map<train::Mode, perf::Learner> learners = {{train::Mode::kAsync, perf::Learner::kAsync},
                                                         {train::Mode::kSync, perf::Learner::kSync},
                                                         {train::Mode::kBmuf, perf::Learner::kBmuf},
                                                         {train::Mode::kAverage, perf::Learner::kAverage}};
  scenario.learner = learners.at(flags.mode);
  scenario.onebit = flags.compress == train::Compression::kOneBit;
  scenario.block_samples = options.block_samples.value_or(0);
}

void resolve_shape(ScenarioFlags& flags) {
  perf::Scenario& scenario = flags.scenario;
  scenario.input = parse_input(flags.input, scenario.input.classes);
  if (scenario.sample_bytes <= 0)
    scenario.sample_bytes = scenario.input.channels * scenario.input.height * scenario.input.width + 1;
}

perf::Calibration read_calibration_and_platform(ScenarioFlags& flags) {
  perf::Calibration calibration = perf::read_calibration(flags.calib);
  flags.scenario.calib_path = flags.calib;
  flags.scenario.platform = perf::parse_platform(flags.platform, calibration.machine.cores);
  return calibration;
}

perf::SimOptions sim_options(const ScenarioFlags& flags) {
  perf::SimOptions options;
  options.times = parse_sim_times(flags.sim_times);
  options.seed = flags.seed;
  return options;
}

void write_output(const ScenarioFlags& flags, const std::string& text) {
  if (flags.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomically(flags.out, text);
  }
}

}  // namespace psbench::cli
