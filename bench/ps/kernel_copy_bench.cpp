// The kernel's copy between two processes (process_vm_readv: Open MPI's CMA single copy of a large message
// within a node) by the offset of the destination against the source within a cache line. On AMD Zen 3 a
// destination 1-31 bytes past the source runs 5-6x slower (docs/architecture.md, "Buffer alignment"); psbench
// keeps every buffer MPI moves on a 64-byte boundary so that it never is. This shows whether a machine has
// such a cliff. Shifts are every even byte count from 0 to 62; sizes are bytes: 256 KiB (a protocol chunk),
// 1 MiB and the mlp's 2.1 MB.
// Run: bench_kernel_copy [Google Benchmark flags]; names are BM_KernelCopy/shift:S/BYTES.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "serial_main.hpp"

namespace {

constexpr std::size_t kMaxBytes = 2143272 + 4096;  // the mlp's parameters, and room for a shift

// The source: a page-aligned region filled before the fork, read from the child's address space.
char* g_source = nullptr;
pid_t g_child = -1;

// process_vm_readv of BYTES from the child's source into a page-aligned buffer shifted by S bytes.
void BM_KernelCopy(benchmark::State& state) {
  const auto shift = static_cast<std::size_t>(state.range(0));
  const auto bytes = static_cast<std::size_t>(state.range(1));
  static char destination[kMaxBytes] __attribute__((aligned(4096)));
  std::memset(destination, 0, sizeof destination);
  for (auto _ : state) {
    iovec local{destination + shift, bytes};
    iovec remote{g_source, bytes};
    if (process_vm_readv(g_child, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes)) {
      state.SkipWithError("process_vm_readv failed (ptrace permission?)");
      break;
    }
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(bytes) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void register_benchmarks() {
  benchmark::RegisterBenchmark("BM_KernelCopy", BM_KernelCopy)
      ->ArgsProduct({benchmark::CreateDenseRange(0, 62, 2), {262144, 1048576, 2143272}})
      ->ArgNames({"shift", ""})
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  void* region = mmap(nullptr, kMaxBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    std::perror("bench_kernel_copy: error: mmap");
    return 1;
  }
  g_source = static_cast<char*>(region);
  std::memset(g_source, 1, kMaxBytes);
  g_child = fork();
  if (g_child == 0) {  // holds the source until killed
    for (;;) pause();
  }
  register_benchmarks();
  const int status = psbench::bench::serial_benchmark_main(argc, argv);
  kill(g_child, SIGKILL);
  waitpid(g_child, nullptr, 0);
  return status;
}
