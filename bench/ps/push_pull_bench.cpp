// Push/pull microbenchmark. Rank 0 is a parameter server; ranks 1..N-1 are workers that run the Google
// Benchmark loop together (each iteration's time is max-reduced over the workers, so all run the same
// iteration count) and rank 1 reports. push_pull runs over messages (path:0) and over the node's shared
// window (path:1). Beside it stand a raw MPI exchange of the same bytes (send the gradient, receive the
// weights) between worker 1 and rank 0, and the local trainer's own SGD update (what a step costs
// without a server). The SGD is the trainer's default: momentum 0.9.
// Run: mpiexec -n 2 bench_push_pull [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

#include "mpi/backoff_wait.hpp"
#include "mpi/environment.hpp"
#include "ps/node_link.hpp"
#include "ps/server.hpp"
#include "ps/worker_client.hpp"

namespace {

using psbench::mpi::Communicator;
using psbench::mpi::ReduceOp;

// What rank 0 is told to do next.
enum class Command : std::int64_t { kQuit = 0, kServe = 1, kRawEcho = 2 };

constexpr int kCommandTag = 900;
constexpr int kRawTag = 901;

// Parameter counts of mlp:512,256 and cnn on 28x28x1 inputs with 10 classes.
constexpr std::int64_t kMlpParameters = 535818;
constexpr std::int64_t kCnnParameters = 3274634;

constexpr psbench::ps::SgdConfig kSgd{1e-3F, 0.9F};

const Communicator& world() {
  static const Communicator comm = Communicator::world();
  return comm;
}

const Communicator& workers() {
  static const Communicator comm = world().split(world().rank() == 0 ? 0 : 1, world().rank());
  return comm;
}

void send_command(Command command, std::int64_t parameters, std::int64_t shared = 0) {
  if (workers().rank() != 0) return;
  const std::int64_t message[3] = {static_cast<std::int64_t>(command), parameters, shared};
  MPI_Send(message, 3, MPI_INT64_T, 0, kCommandTag, MPI_COMM_WORLD);
}

double max_over_workers(double seconds) { return workers().allreduce(seconds, ReduceOp::kMax); }

void BM_PushPull(benchmark::State& state) {
  const auto parameters = static_cast<std::size_t>(state.range(0));
  const bool shared = state.range(1) != 0;
  send_command(Command::kServe, state.range(0), state.range(1));
  const auto topology = psbench::ps::Topology::async(world().size(), world().rank(), 1);
  const psbench::ps::ShardLayout layout(parameters, 1);
  std::unique_ptr<psbench::ps::NodeLink> link;
  if (shared) link = std::make_unique<psbench::ps::NodeLink>(world(), world().split_by_node(), topology, parameters);
  psbench::ps::WorkerClient client(world(), topology, layout, link.get());
  std::vector<float> weights(parameters, 0.0F);
  std::vector<float> own_gradients(shared ? 0 : parameters);
  const std::span<float> gradients = shared ? link->gradients() : std::span<float>(own_gradients);
  psbench::PhaseTimer timer;
  psbench::ps::PushHeader header;
  float checksum = 0.0F;
  for (auto _ : state) {
    // As a training step would, read the weights and write the gradient first (outside the timing), so
    // both start in this worker's cache, not in the server's.
    state.PauseTiming();
    checksum += std::accumulate(weights.begin(), weights.end(), 0.0F);
    std::fill(gradients.begin(), gradients.end(), 1e-6F);
    state.ResumeTiming();
    const double start = psbench::monotonic_seconds();
    client.push_pull(gradients, weights, header, timer);
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
  client.finish();
  benchmark::DoNotOptimize(checksum);
  const double bytes = 2.0 * static_cast<double>(parameters) * sizeof(float);
  state.counters["bytes/s"] =
      benchmark::Counter(bytes * static_cast<double>(state.iterations()) * static_cast<double>(workers().size()),
                         benchmark::Counter::kIsRate);
  state.counters["updates/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(workers().size()), benchmark::Counter::kIsRate);
  state.counters["workers"] = workers().size();
}

void BM_RawMpiExchange(benchmark::State& state) {
  const auto parameters = static_cast<std::size_t>(state.range(0));
  send_command(Command::kRawEcho, state.range(0));
  std::vector<float> buffer(parameters, 1.0F);
  const int count = static_cast<int>(parameters);
  const bool exchanging = workers().rank() == 0;
  std::int64_t rounds = 0;
  for (auto _ : state) {
    const double start = psbench::monotonic_seconds();
    if (exchanging) {
      MPI_Send(buffer.data(), count, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), count, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ++rounds;
    }
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
  if (exchanging) {
    const float stop = -1.0F;
    MPI_Send(&stop, 1, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD);
  }
  state.counters["bytes/s"] = benchmark::Counter(
      2.0 * static_cast<double>(parameters) * sizeof(float) * static_cast<double>(rounds), benchmark::Counter::kIsRate);
}

// What the local trainer pays per step instead of an exchange: the SGD update of all P values.
void BM_LocalUpdate(benchmark::State& state) {
  const auto parameters = static_cast<std::size_t>(state.range(0));
  psbench::ps::SgdOptimizer optimizer(parameters, kSgd);
  std::vector<float> weights(parameters, 0.0F);
  const std::vector<float> gradients(parameters, 1e-6F);
  for (auto _ : state) {
    const double start = psbench::monotonic_seconds();
    optimizer.apply(weights, gradients);
    benchmark::ClobberMemory();
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
}

BENCHMARK(BM_LocalUpdate)->Arg(kMlpParameters)->Arg(kCnnParameters)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RawMpiExchange)->Arg(kMlpParameters)->Arg(kCnnParameters)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PushPull)
    ->ArgsProduct({{kMlpParameters, kCnnParameters}, {0, 1}})
    ->ArgNames({"params", "path"})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Rank 0's side of BM_RawMpiExchange: echoes each message back until a one-float stop message.
void echo_until_stop(std::size_t parameters) {
  std::vector<float> buffer(parameters);
  const int count = static_cast<int>(parameters);
  for (;;) {
    MPI_Status status;
    MPI_Recv(buffer.data(), count, MPI_FLOAT, 1, kRawTag, MPI_COMM_WORLD, &status);
    int received = 0;
    MPI_Get_count(&status, MPI_FLOAT, &received);
    if (received != count) return;
    MPI_Send(buffer.data(), count, MPI_FLOAT, 1, kRawTag, MPI_COMM_WORLD);
  }
}

// Rank 0 follows the commands of worker 1 until told to quit.
void serve_commands() {
  for (;;) {
    std::int64_t message[3] = {0, 0, 0};
    MPI_Recv(message, 3, MPI_INT64_T, 1, kCommandTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const auto command = static_cast<Command>(message[0]);
    const auto parameters = static_cast<std::size_t>(message[1]);
    if (command == Command::kQuit) return;
    if (command == Command::kRawEcho) {
      echo_until_stop(parameters);
      continue;
    }
    const auto topology = psbench::ps::Topology::async(world().size(), 0, 1);
    const psbench::ps::ShardLayout layout(parameters, 1);
    const std::vector<float> initial(parameters, 0.0F);
    std::unique_ptr<psbench::ps::NodeLink> link;
    if (message[2] != 0)
      link = std::make_unique<psbench::ps::NodeLink>(world(), world().split_by_node(), topology, parameters);
    psbench::ps::Server server(world(), topology, layout, initial, kSgd, link.get());
    (void)server.serve();
  }
}

// Discards results: every worker runs each benchmark, one reports.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& /*runs*/) override {}
};

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  if (environment.world().size() < 2) {
    std::fprintf(stderr, "bench_push_pull needs at least 2 ranks (1 server, 1+ workers)\n");
    return 2;
  }
  psbench::mpi::configure_waits(environment.world());
  (void)workers();
  if (environment.world().rank() == 0) {
    serve_commands();
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (workers().rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    SilentReporter silent;  // other workers run the same loops; only worker 1 reports
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  send_command(Command::kQuit, 0);
  benchmark::Shutdown();
  return 0;
}
