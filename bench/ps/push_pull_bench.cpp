// Push/pull microbenchmark. Rank 0 is a parameter server; ranks 1..N-1 are workers that run the Google
// Benchmark loop together (each iteration's time is max-reduced over the workers, so all run the same
// iteration count) and rank 1 reports. At every size, side by side: the server's SGD update alone
// (BM_LocalUpdate, momentum 0.9, the trainer's default), a raw MPI exchange of the same bytes between
// worker 1 and rank 0 (BM_RawMpiExchange), push_pull over messages (path:0), over the node's shared
// window (path:1) and by MPI one-sided communication (path:2), and an MPI_Allreduce of the same bytes among all ranks
// (BM_Allreduce: sync SGD's exchange). ContractReporter (bench/common) then sets each push/pull's vs_limit against
// max(raw, update), the pipelined limit. BM_PushPullOneBit is push_pull over messages with --compress onebit's pushes
// (bench_columns: mlp:512,256's first layer's columns of 512 values, error feedback on) at the same sizes: the push
// carries the packed gradient, the pull every float. Sizes are bytes of parameters (4 per float): 4 KiB to --max-bytes
// (default 64 MiB) in powers of 4, and the two models. See docs/benchmarks.md. Run: mpiexec -n 2 bench_push_pull
// [--max-bytes=N] [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "bench_columns.hpp"
#include "bench_context.hpp"
#include "common/aligned_buffer.hpp"
#include "common/error.hpp"
#include "contract_reporter.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/environment.hpp"
#include "ps/server.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/rma_link.hpp"
#include "ps/worker_client.hpp"

namespace {

using psbench::mpi::Communicator;
using psbench::mpi::ReduceOp;

// How rank 0 serves a BM_PushPull* run: the third word of its command.
enum class ServePath : std::int64_t { kMessages = 0, kSharedMemory = 1, kRma = 2, kOneBitMessages = 3 };

// What rank 0 is told to do next.
enum class Command : std::int64_t { kQuit = 0, kServe = 1, kRawEcho = 2, kAllreduce = 3 };

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

// Values in a benchmark of BYTES bytes of parameters (its last argument).
std::size_t values_of(const benchmark::State& state, int argument) {
  return static_cast<std::size_t>(state.range(argument)) / sizeof(float);
}

// What the servers and workers run with: the spin budget mpi::configure_waits chose for this node.
psbench::ps::ProtocolSettings bench_settings() {
  return {-1, psbench::ps::kDefaultStallTimeoutSeconds, psbench::mpi::spin_budget()};
}

// Collective: the RMA windows of path kRma (every pair by MPI one-sided), or none.
std::unique_ptr<psbench::ps::RmaLink> rma_link(ServePath path, const psbench::ps::Topology& topology,
                                               const psbench::ps::ShardLayout& layout) {
  if (path != ServePath::kRma) return nullptr;
  return std::make_unique<psbench::ps::RmaLink>(world(), world().split_by_node(), topology, layout,
                                                psbench::ps::Transport::kRma, psbench::ps::Transport::kRma);
}

// push_pull of BYTES/4 parameters over path, one-bit pushes when compressed; the counters of BM_PushPull.
void run_push_pull(benchmark::State& state, ServePath path, std::size_t parameters) {
  const bool shared = path == ServePath::kSharedMemory;
  send_command(Command::kServe, static_cast<std::int64_t>(parameters), static_cast<std::int64_t>(path));
  const auto topology = psbench::ps::Topology::async(world().size(), world().rank(), 1);
  const psbench::ps::ShardLayout layout(parameters, 1);
  std::unique_ptr<psbench::ps::NodeLink> link;
  if (shared) link = std::make_unique<psbench::ps::NodeLink>(world(), world().split_by_node(), topology, parameters);
  const std::unique_ptr<psbench::ps::RmaLink> rma = rma_link(path, topology, layout);
  psbench::ps::WorkerClient client(world(), topology, layout, psbench::ps::Links(link.get(), rma.get()), false,
                                   bench_settings());
  if (path == ServePath::kOneBitMessages) client.compress_pushes(psbench::bench::bench_columns(parameters), true);
  // The worker's vectors are aligned as a model's are (common/aligned_buffer.hpp).
  const psbench::AlignedBuffer weight_storage(parameters);
  const std::span<float> weights = weight_storage.span();
  // On another node than its server (a hostfile), a worker's link holds no gradients: it uses its own.
  const bool in_window = shared && !link->gradients().empty();
  const psbench::AlignedBuffer own_gradients(in_window ? 0 : parameters);
  const std::span<float> gradients = in_window ? link->gradients() : own_gradients.span();
  psbench::PhaseTimer timer;
  psbench::ps::PushHeader header;
  header.samples = 1;  // the server refuses a step of no samples
  float checksum = 0.0F;
  // One untimed exchange first: a buffer's first transfer pays for its pages (a kernel copy pins them),
  // 10x a later one in a VM (docs/benchmarks.md), which a 1-iteration run of a large size would report.
  client.push_pull(gradients, weights, header, timer);
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
  // What one push handed over (header included): 4 bytes per value in fp32, the packed columns with one bit.
  state.counters["push_bytes"] =
      static_cast<double>(client.traffic().sent) / static_cast<double>(state.iterations() + 1);  // + the untimed one
  client.finish();
  benchmark::DoNotOptimize(checksum);
  const auto exchanges = static_cast<double>(state.iterations()) * static_cast<double>(workers().size());
  const auto bytes = static_cast<double>(parameters * sizeof(float));
  state.counters["bytes_per_second"] = benchmark::Counter(2.0 * bytes * exchanges, benchmark::Counter::kIsRate);
  state.counters["updates_per_second"] = benchmark::Counter(exchanges, benchmark::Counter::kIsRate);
  state.counters["workers"] = workers().size();
}

void BM_PushPull(benchmark::State& state) {
  run_push_pull(state, static_cast<ServePath>(state.range(0)), values_of(state, 1));
}

void BM_PushPullOneBit(benchmark::State& state) {
  run_push_pull(state, ServePath::kOneBitMessages, values_of(state, 0));
}

// Sends the buffer to rank 0 and receives its echo in place.
void exchange_once(std::span<float> buffer) {
  const int count = static_cast<int>(buffer.size());
  MPI_Send(buffer.data(), count, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD);
  MPI_Recv(buffer.data(), count, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void BM_RawMpiExchange(benchmark::State& state) {
  const std::size_t parameters = values_of(state, 0);
  send_command(Command::kRawEcho, static_cast<std::int64_t>(parameters));
  const psbench::AlignedBuffer storage(parameters);  // aligned as psbench's buffers are
  const std::span<float> buffer = storage.span();
  std::fill(buffer.begin(), buffer.end(), 1.0F);
  const bool exchanging = workers().rank() == 0;
  std::int64_t rounds = 0;
  if (exchanging) exchange_once(buffer);  // untimed, as BM_PushPull's first exchange
  for (auto _ : state) {
    const double start = psbench::monotonic_seconds();
    if (exchanging) {
      exchange_once(buffer);
      ++rounds;
    }
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
  if (exchanging) {
    const float stop = -1.0F;
    MPI_Send(&stop, 1, MPI_FLOAT, 0, kRawTag, MPI_COMM_WORLD);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      2.0 * static_cast<double>(state.range(0)) * static_cast<double>(rounds), benchmark::Counter::kIsRate);
}

// MPI_Allreduce (sum) of BYTES/4 floats among all ranks, rank 0 included, as sync SGD's gradient and the block
// learners' models are summed. Each buffer carries one float more, a stop flag that only the last, untimed
// allreduce sets, so rank 0 follows without knowing the iteration count. bytes_per_second counts what each rank
// sends in a ring allreduce, 2 (R - 1) / R x BYTES; `ranks` is R, which psbench model calibrate needs.
void BM_Allreduce(benchmark::State& state) {
  const std::size_t parameters = values_of(state, 0);
  send_command(Command::kAllreduce, static_cast<std::int64_t>(parameters));
  const psbench::AlignedBuffer send_storage(parameters + 1);
  const psbench::AlignedBuffer sum_storage(parameters + 1);
  const std::span<float> send = send_storage.span();
  std::fill(send.begin(), send.end() - 1, 1e-6F);
  send.back() = 0.0F;
  const auto allreduce = [&] {
    MPI_Allreduce(send.data(), sum_storage.span().data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  };
  allreduce();  // untimed, as BM_PushPull's first exchange
  for (auto _ : state) {
    const double start = psbench::monotonic_seconds();
    allreduce();
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
  send.back() = 1.0F;
  allreduce();
  const double ranks = world().size();
  state.counters["ranks"] = ranks;
  state.counters["bytes_per_second"] = benchmark::Counter(
      2.0 * (ranks - 1.0) / ranks * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// The server's SGD update of all P values alone, on a worker's core (what a step costs instead of an
// exchange when there is no server). bytes_per_second counts its memory traffic: w, g and v read, w and
// v written.
void BM_LocalUpdate(benchmark::State& state) {
  const std::size_t parameters = values_of(state, 0);
  psbench::ps::SgdOptimizer optimizer(parameters, kSgd);
  std::vector<float> weights(parameters, 0.0F);
  const std::vector<float> gradients(parameters, 1e-6F);
  optimizer.apply(weights, gradients);  // untimed: the first pass faults in the optimizer's velocity
  for (auto _ : state) {
    const double start = psbench::monotonic_seconds();
    optimizer.apply(weights, gradients);
    benchmark::ClobberMemory();
    state.SetIterationTime(max_over_workers(psbench::monotonic_seconds() - start));
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      5.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Bytes of parameters benchmarked: 4 KiB to max_bytes in powers of 4, and the two models, ascending.
std::vector<std::int64_t> sizes_up_to(std::int64_t max_bytes) {
  std::vector<std::int64_t> sizes{kMlpParameters * 4, kCnnParameters * 4};
  for (std::int64_t bytes = 4096; bytes <= max_bytes; bytes *= 4) sizes.push_back(bytes);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// Per size, the update, the raw exchange, both push/pull paths, 1-bit push/pull and the allreduce, one after the
// other, so that each push/pull runs beside its limits.
void register_benchmarks(std::int64_t max_bytes) {
  for (const std::int64_t bytes : sizes_up_to(max_bytes)) {
    const std::vector<benchmark::internal::Benchmark*> benchmarks{
        benchmark::RegisterBenchmark("BM_LocalUpdate", BM_LocalUpdate)->Arg(bytes),
        benchmark::RegisterBenchmark("BM_RawMpiExchange", BM_RawMpiExchange)->Arg(bytes),
        benchmark::RegisterBenchmark("BM_PushPull", BM_PushPull)
            ->ArgsProduct({{0, 1, 2}, {bytes}})
            ->ArgNames({"path", ""}),
        benchmark::RegisterBenchmark("BM_PushPullOneBit", BM_PushPullOneBit)->Arg(bytes),
        benchmark::RegisterBenchmark("BM_Allreduce", BM_Allreduce)->Arg(bytes)};
    for (auto* benchmark : benchmarks) benchmark->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

// Rank 0's side of BM_RawMpiExchange: echoes each message back until a one-float stop message.
void echo_until_stop(std::size_t parameters) {
  const psbench::AlignedBuffer storage(parameters);
  const std::span<float> buffer = storage.span();
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

// Rank 0's side of BM_Allreduce: joins every allreduce until one carries the stop flag.
void allreduce_until_stop(std::size_t parameters) {
  const psbench::AlignedBuffer send_storage(parameters + 1);
  const psbench::AlignedBuffer sum_storage(parameters + 1);
  const std::span<float> send = send_storage.span();
  const std::span<float> sum = sum_storage.span();
  std::fill(send.begin(), send.end() - 1, 1e-6F);
  send.back() = 0.0F;
  do {
    MPI_Allreduce(send.data(), sum.data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } while (sum.back() == 0.0F);
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
    if (command == Command::kAllreduce) {
      allreduce_until_stop(parameters);
      continue;
    }
    const auto topology = psbench::ps::Topology::async(world().size(), 0, 1);
    const psbench::ps::ShardLayout layout(parameters, 1);
    const std::vector<float> initial(parameters, 0.0F);
    const auto path = static_cast<ServePath>(message[2]);
    std::unique_ptr<psbench::ps::NodeLink> link;
    if (path == ServePath::kSharedMemory)
      link = std::make_unique<psbench::ps::NodeLink>(world(), world().split_by_node(), topology, parameters);
    const std::unique_ptr<psbench::ps::RmaLink> rma = rma_link(path, topology, layout);
    psbench::ps::Server server(world(), topology, layout, initial, kSgd, psbench::ps::Links(link.get(), rma.get()),
                               std::nullopt, bench_settings());
    if (path == ServePath::kOneBitMessages) server.take_compressed_pushes(psbench::bench::bench_columns(parameters), 0);
    (void)server.serve();
  }
}

// Takes --max-bytes=N out of argv (the rest is Google Benchmark's): the largest power-of-4 size.
std::int64_t take_max_bytes(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--max-bytes=";
  std::int64_t max_bytes = std::int64_t{64} << 20;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (!argument.starts_with(kFlag)) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::string text(argument.substr(kFlag.size()));
    char* end = nullptr;
    max_bytes = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || max_bytes < 4096 || max_bytes > (std::int64_t{1} << 32)) {
      throw psbench::UserError("--max-bytes must be a byte count from 4096 to 2^32, got '" + text + "'");
    }
  }
  argc = kept;
  return max_bytes;
}

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  try {
    if (environment.world().size() < 2) {
      throw psbench::UserError("bench_push_pull needs at least 2 ranks (1 server, 1 or more workers)");
    }
    register_benchmarks(take_max_bytes(argc, argv));
    psbench::mpi::configure_waits(environment.world());
  } catch (const std::exception& error) {
    if (environment.world().rank() == 0) std::fprintf(stderr, "%s\n", psbench::format_error_line(error.what()).c_str());
    return 2;
  }
  (void)workers();
  if (environment.world().rank() == 0) {
    serve_commands();
    return 0;
  }
  const bool to_file = psbench::bench::names_output_file(argc, argv);
  if (workers().rank() != 0) psbench::bench::drop_output_file(argc, argv);  // only worker 1 writes the file
  benchmark::Initialize(&argc, argv);
  psbench::bench::run_benchmarks_on_ranks(workers().rank() == 0, to_file);  // only worker 1 reports
  send_command(Command::kQuit, 0);
  benchmark::Shutdown();
  return 0;
}
