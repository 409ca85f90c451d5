// Train steps of k ranks at once on one node's cores, beside one rank's steps alone in the same iteration (its
// limit): what ranks sharing cores cost beyond an even share of the cores. Per iteration the first rank runs
// kBlockSteps steps while the others wait asleep, then every rank runs kBlockSteps at once; the iteration's time is
// the slowest rank's concurrent step (max-reduced, so every rank runs the same iteration count). Counter `stretch`
// = concurrent step / (alone step x max(1, k / c)): 1 where the cores are shared evenly and nothing else is lost
// (the processor sharing every kind of the model assumes); `psbench model calibrate` fits the model's sharing term
// to it against `ranks_per_core`. Only rank 0 reports. See docs/benchmarks.md.
// Run: mpiexec -n K bench_shared_steps [--model=SPEC] [--batch=B] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_context.hpp"
#include "common/error.hpp"
#include "common/phase_timer.hpp"
#include "common/resources.hpp"
#include "contract_reporter.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/environment.hpp"
#include "nn/model.hpp"

namespace {

using psbench::mpi::Communicator;

constexpr psbench::nn::InputShape kInput{1, 28, 28};
constexpr int kClasses = 10;
constexpr int kBlockSteps = 16;  // steps per rank per block: tens of ms, many scheduler time slices
constexpr int kIterations = 10;  // blocks alone and at once per repetition: each iteration runs 2 x kBlockSteps steps

struct StepFlags {
  std::string model = "mlp:512,256";  // --model
  int batch = 64;                     // --batch: the published sweep's
};

StepFlags& flags() {
  static StepFlags value;
  return value;
}

const Communicator& world() {
  static const Communicator comm = Communicator::world();
  return comm;
}

// A barrier whose waiting ranks sleep (MPI_Ibarrier polled with backoff): a spinning waiter would take a core from
// the rank that runs alone.
void quiet_barrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(world().native(), &request);
  psbench::mpi::wait_all({&request, 1});
}

double max_over_ranks(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, world().native());
  return value;
}

// Seconds per step over one block of kBlockSteps.
double block_step_s(psbench::nn::Model& model, const std::vector<float>& images,
                    const std::vector<std::int32_t>& labels) {
  const double start = psbench::monotonic_seconds();
  for (int i = 0; i < kBlockSteps; ++i) benchmark::DoNotOptimize(model.train_step(images.data(), labels.data()));
  return (psbench::monotonic_seconds() - start) / kBlockSteps;
}

void BM_TrainStepShared(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  psbench::nn::Model model(flags().model, kInput, kClasses, batch, 1, 1);
  std::vector<float> images(static_cast<std::size_t>(batch) * kInput.channels * kInput.height * kInput.width);
  std::mt19937 generator(2 + world().rank());
  std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
  for (float& v : images) v = uniform(generator);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % kClasses);
  (void)model.train_step(images.data(), labels.data());  // first touch of the buffers and the scratchpad
  const int ranks = world().size();
  const int cores = std::max(1, psbench::online_cores());
  const double share = std::max(1.0, static_cast<double>(ranks) / cores);
  double alone_sum = 0.0;
  double concurrent_sum = 0.0;
  for (auto _ : state) {
    quiet_barrier();
    double alone = world().rank() == 0 ? block_step_s(model, images, labels) : 0.0;
    alone = max_over_ranks(alone);
    quiet_barrier();
    const double concurrent = max_over_ranks(block_step_s(model, images, labels));
    state.SetIterationTime(concurrent);
    alone_sum += alone;
    concurrent_sum += concurrent;
  }
  state.counters["ranks"] = ranks;
  state.counters["cores"] = cores;
  state.counters["ranks_per_core"] = static_cast<double>(ranks) / cores;
  state.counters["alone_step_s"] = alone_sum / static_cast<double>(state.iterations());
  state.counters["stretch"] = alone_sum > 0.0 ? concurrent_sum / (alone_sum * share) : 0.0;
}

// Takes --model=SPEC and --batch=B out of argv.
void take_flags(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.starts_with("--model=")) {
      flags().model = argument.substr(8);
    } else if (argument.starts_with("--batch=")) {
      flags().batch = std::stoi(std::string(argument.substr(8)));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (flags().batch < 1) throw psbench::UserError("bench_shared_steps: --batch must be at least 1");
  (void)psbench::nn::parameter_count_for(flags().model, kInput, kClasses);
}

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  return psbench::bench::mpi_benchmark_main(environment.world(), argc, argv, take_flags, [] {
    // The name's last argument is the batch; the ranks are a counter. A fixed iteration count: the manual time is
    // one step's, a 32nd of what an iteration runs, so a --benchmark_min_time would run 32 times longer than it says.
    benchmark::RegisterBenchmark("BM_TrainStepShared", BM_TrainStepShared)
        ->Arg(flags().batch)
        ->Iterations(kIterations)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  });
}
