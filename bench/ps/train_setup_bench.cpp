// The trainer's set-up: per iteration, one `psbench train` run (psbench::train::run_training, async, 1 server and the
// other ranks workers, one epoch of --data) whose set-up is what its results file holds beyond the read and the
// training, total - training - read_end_s (the figure `psbench model calibrate --runs` fits as setup_s): the shared
// window, the model's oneDNN primitives, the first weights' broadcast, the roles' start and the stop after the last
// step. Its limit, measured in the same iteration: one worker building the same model alone while every other rank
// waits (nothing sets a worker up faster). Rank 0 reads the results and broadcasts the set-up, so every rank agrees
// on the iteration time and runs the same count; only rank 0 reports. See docs/benchmarks.md.
// Run: mpiexec -n 1+W bench_train_setup --data=FILE.h5 [--model=SPEC] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_context.hpp"
#include "common/error.hpp"
#include "common/phase_timer.hpp"
#include "contract_reporter.hpp"
#include "data/loader.hpp"
#include "mpi/environment.hpp"
#include "nn/model.hpp"
#include "perf/run_points.hpp"
#include "results/file_io.hpp"
#include "train/driver.hpp"

namespace {

using psbench::mpi::Communicator;

// The benchmark's flags (the rest of argv is Google Benchmark's) and what the data file says.
struct SetUpFlags {
  std::string data;                   // --data: the HDF5 file each run trains on for one epoch
  std::string model = "mlp:512,256";  // --model: the network spec
  psbench::nn::InputShape input;      // the file's sample shape
  int num_classes = 0;                // the file's classes
};

constexpr int kFirstWorker = 1;  // rank 0 serves

SetUpFlags& flags() {
  static SetUpFlags value;
  return value;
}

const Communicator& world() {
  static const Communicator comm = Communicator::world();
  return comm;
}

// The run's options: psbench train's defaults with --mode async --servers 1 --epochs 1 --quiet.
psbench::train::TrainOptions run_options(const std::string& out_path) {
  psbench::train::TrainOptions options;
  options.data_path = flags().data;
  options.model_spec = flags().model;
  options.mode = psbench::train::Mode::kAsync;
  options.servers = 1;
  options.epochs = 1;
  options.quiet = true;
  options.out_path = out_path;
  return options;
}

// One worker builds the model alone while the others wait: seconds, on every rank.
double model_build_seconds(const psbench::train::TrainOptions& options) {
  double seconds = 0.0;
  world().barrier();
  if (world().rank() == kFirstWorker) {
    const double start = psbench::monotonic_seconds();
    const psbench::nn::Model model(options.model_spec, flags().input, flags().num_classes, options.batch, options.seed,
                                   options.threads);
    seconds = psbench::monotonic_seconds() - start;
  }
  world().broadcast(std::span<double>(&seconds, 1), kFirstWorker);
  return seconds;
}

// What one run's results file says, on every rank.
struct RunSetUp {
  double setup_s = 0.0;        // total - training - read_end_s
  double set_up_run_s = 0.0;   // init_total - read_end_s: before the roles start
  double parameter_bytes = 0;  // 4 P
};

RunSetUp run_once(const psbench::train::TrainOptions& options) {
  (void)psbench::train::run_training(world(), options);
  std::array<double, 3> values{};
  if (world().rank() == 0) {
    const psbench::results::ResultsFile run = psbench::results::read_results_file(options.out_path);
    std::filesystem::remove(options.out_path);
    const double read_end = psbench::perf::read_end_s(run);
    values = {run.phases[psbench::Phase::kTotal] - run.train.training_s - read_end,
              run.phases[psbench::Phase::kInitTotal] - read_end, static_cast<double>(run.model.parameter_bytes)};
  }
  world().broadcast(std::span<double>(values), 0);
  return {values[0], values[1], values[2]};
}

// Per iteration the limit, then one run; the iteration's time is the run's set-up.
void BM_TrainSetUp(benchmark::State& state) {
  const std::string out_path =
      (std::filesystem::temp_directory_path() / ("psbench-train-setup-" + std::to_string(::getpid()) + ".json"))
          .string();
  const psbench::train::TrainOptions options = run_options(out_path);
  double build = 0.0;
  double setup = 0.0;
  double set_up_run = 0.0;
  double bytes = 0.0;
  for (auto _ : state) {
    build += model_build_seconds(options);
    const RunSetUp run = run_once(options);
    state.SetIterationTime(run.setup_s);
    setup += run.setup_s;
    set_up_run += run.set_up_run_s;
    bytes = run.parameter_bytes;
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["workers"] = world().size() - 1;
  state.counters["servers"] = 1;
  state.counters["ranks"] = world().size();
  state.counters["parameter_bytes"] = bytes;
  state.counters["set_up_run_s"] = set_up_run / iterations;
  state.counters["model_build_s"] = build / iterations;
  state.counters["vs_limit"] = setup > 0.0 ? build / setup : 0.0;
}

// Takes --data=FILE and --model=SPEC out of argv; refuses a missing --data.
void take_flags(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.starts_with("--data=")) {
      flags().data = argument.substr(7);
    } else if (argument.starts_with("--model=")) {
      flags().model = argument.substr(8);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (flags().data.empty())
    throw psbench::UserError("bench_train_setup needs --data=FILE.h5 (the file each run trains on)");
}

// Every rank reads the data file's test split and checks the model against it, so bad input stops every rank here.
void check_against_data() {
  const psbench::data::Samples test = psbench::data::load_split(flags().data, "test");
  flags().input = {test.shape.channels, test.shape.height, test.shape.width};
  flags().num_classes = test.num_classes;
  (void)psbench::nn::parameter_count_for(flags().model, flags().input, flags().num_classes);
}

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  const auto checked_flags = [&environment](int& count, char** values) {
    if (environment.world().size() < 2) {
      throw psbench::UserError("bench_train_setup needs at least 2 ranks (1 server, 1 or more workers)");
    }
    take_flags(count, values);
    check_against_data();
  };
  return psbench::bench::mpi_benchmark_main(environment.world(), argc, argv, checked_flags, [] {
    // The name's last argument is the workers, the abscissa psbench model calibrate fits the set-up against.
    benchmark::RegisterBenchmark("BM_TrainSetUp", BM_TrainSetUp)
        ->Arg(world().size() - 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  });
}
