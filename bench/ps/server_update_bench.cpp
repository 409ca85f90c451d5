// The server's SGD update beside a STREAM-style triad over the same number of floats: the update streams
// weights, gradients and velocity (momentum 0.9, the trainer's default), so memory bandwidth is its limit; the
// delay-compensated update (--delay-compensation) streams the pushing worker's shard copy as well.
// The 1-bit quantizer (--compress onebit) is memory-bound too: quantizing with error feedback streams the gradient
// and the residual, and a server's or sync worker's dequantization writes a float per bit.
// Sizes are bytes of parameters (4 per float): 4 KiB to 64 MiB in powers of 4, and the two models.
// Run: bench_server_update [Google Benchmark flags] (see docs/benchmarks.md)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_columns.hpp"
#include "compress/onebit.hpp"
#include "ps/sgd.hpp"
#include "serial_main.hpp"

namespace {

// Parameter counts of mlp:512,256 and cnn on 28x28x1 inputs with 10 classes.
constexpr std::int64_t kMlpParameters = 535818;
constexpr std::int64_t kCnnParameters = 3274634;

// The update of BYTES/4 values with momentum 0.9. bytes_per_second counts w, g and v read and w and v
// written: 20 bytes per value.
void BM_SgdUpdate(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  psbench::ps::SgdOptimizer optimizer(size, psbench::ps::SgdConfig{1e-3F, 0.9F});
  std::vector<float> weights(size, 1.0F);
  const std::vector<float> gradients(size, 1e-3F);
  // One untimed pass first: at 64 MiB a fresh allocation's first passes ran 10x slower here, and a short run
  // whose first iteration outlasts --benchmark_min_time reports that one (docs/benchmarks.md).
  optimizer.apply(weights, gradients);
  for (auto _ : state) {
    optimizer.apply(weights, gradients);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      5.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The delay-compensated update (--delay-compensation, DC-ASGD: g' = g + lambda*g*g*(w - w_m), then the momentum
// step) of BYTES/4 values at MXNet's lambda 0.04, as a server answers a push: the pushing worker's copy w_m is
// refreshed with the fresh weights in the same pass. bytes_per_second counts w, g, v and w_m read and w, v and w_m
// written: 28 bytes per value.
void BM_DelayCompensatedUpdate(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  psbench::ps::SgdOptimizer optimizer(size, psbench::ps::SgdConfig{1e-3F, 0.9F});
  std::vector<float> weights(size, 1.0F);
  std::vector<float> sent(size, 1.0F);
  const std::vector<float> gradients(size, 1e-3F);
  optimizer.apply_compensated_slice(weights, gradients, 0, sent, 0.04F, true);  // untimed, as BM_SgdUpdate's
  for (auto _ : state) {
    optimizer.apply_compensated_slice(weights, gradients, 0, sent, 0.04F, true);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      7.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Packed bytes of a layout: two floats per column and its bits, padded to 32-bit words.
double packed_bytes(const psbench::compress::ColumnLayout& layout) {
  return static_cast<double>(layout.words() * sizeof(std::uint32_t));
}

// 1-bit quantization with error feedback of BYTES/4 values of N(0, 1)-like signs. bytes_per_second counts the
// gradient and the residual read, the residual written and the packed form written: 12 bytes per value and the
// packed bytes.
void BM_OneBitQuantize(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  const psbench::compress::ColumnLayout layout = psbench::bench::bench_columns(size);
  std::vector<float> gradients(size);
  for (std::size_t i = 0; i < size; ++i) gradients[i] = static_cast<float>((i * 2654435761U) % 2001) * 1e-3F - 1.0F;
  std::vector<float> residual(size, 0.0F);
  std::vector<std::uint32_t> packed(layout.words());
  psbench::compress::quantize_onebit(layout, gradients, residual, packed);  // untimed, as BM_SgdUpdate's
  for (auto _ : state) {
    psbench::compress::quantize_onebit(layout, gradients, residual, packed);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      (3.0 * static_cast<double>(state.range(0)) + packed_bytes(layout)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// Dequantization of BYTES/4 values from their packed form. bytes_per_second counts the packed form read and a float
// written per value: 4 bytes per value and the packed bytes.
void BM_OneBitDequantize(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  const psbench::compress::ColumnLayout layout = psbench::bench::bench_columns(size);
  std::vector<float> values(size);
  for (std::size_t i = 0; i < size; ++i) values[i] = static_cast<float>((i * 2654435761U) % 2001) * 1e-3F - 1.0F;
  std::vector<std::uint32_t> packed(layout.words());
  psbench::compress::quantize_onebit(layout, values, {}, packed);
  psbench::compress::dequantize_onebit(layout, packed, values);  // untimed, as BM_SgdUpdate's
  for (auto _ : state) {
    psbench::compress::dequantize_onebit(layout, packed, values);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      (static_cast<double>(state.range(0)) + packed_bytes(layout)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// a = b + 0.5 c over BYTES/4 floats per array. bytes_per_second counts, as STREAM does, b and c read and
// a written: 12 bytes per value (the write's read-for-ownership is not counted).
void BM_Triad(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  std::vector<float> a(size, 0.0F);
  const std::vector<float> b(size, 1.0F);
  const std::vector<float> c(size, 2.0F);
  for (auto _ : state) {
    float* __restrict out = a.data();
    const float* __restrict x = b.data();
    const float* __restrict y = c.data();
    for (std::size_t i = 0; i < size; ++i) out[i] = x[i] + 0.5F * y[i];
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      3.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Per size the triad, then the update, the delay-compensated update and the 1-bit kernels beside it.
void register_benchmarks() {
  std::vector<std::int64_t> sizes{kMlpParameters * 4, kCnnParameters * 4};
  for (std::int64_t bytes = 4096; bytes <= (std::int64_t{64} << 20); bytes *= 4) sizes.push_back(bytes);
  std::sort(sizes.begin(), sizes.end());
  for (const std::int64_t bytes : sizes) {
    benchmark::RegisterBenchmark("BM_Triad", BM_Triad)->Arg(bytes)->UseRealTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_SgdUpdate", BM_SgdUpdate)
        ->Arg(bytes)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_DelayCompensatedUpdate", BM_DelayCompensatedUpdate)
        ->Arg(bytes)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_OneBitQuantize", BM_OneBitQuantize)
        ->Arg(bytes)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_OneBitDequantize", BM_OneBitDequantize)
        ->Arg(bytes)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_benchmarks();
  return psbench::bench::serial_benchmark_main(argc, argv);
}
