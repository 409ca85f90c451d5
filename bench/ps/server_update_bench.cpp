// The server's SGD update beside a STREAM-style triad over the same number of floats: the update streams
// weights and gradients (and velocity with momentum), so memory bandwidth is its limit.
#include <benchmark/benchmark.h>

#include <vector>

#include "ps/sgd.hpp"

namespace {

void BM_SgdUpdate(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const float momentum = state.range(1) != 0 ? 0.9F : 0.0F;
  psbench::ps::SgdOptimizer optimizer(size, psbench::ps::SgdConfig{1e-3F, momentum});
  std::vector<float> weights(size, 1.0F);
  const std::vector<float> gradients(size, 1e-3F);
  for (auto _ : state) {
    optimizer.apply(weights, gradients);
    benchmark::ClobberMemory();
  }
  // Bytes moved: read w and g, write w; with momentum also read and write v.
  const double bytes_per_value = momentum != 0.0F ? 5.0 * sizeof(float) : 3.0 * sizeof(float);
  state.counters["bytes/s"] =
      benchmark::Counter(bytes_per_value * static_cast<double>(size) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_Triad(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
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
  state.counters["bytes/s"] =
      benchmark::Counter(3.0 * sizeof(float) * static_cast<double>(size) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

// mlp:512,256 and cnn parameter counts.
BENCHMARK(BM_Triad)->Arg(535818)->Arg(3274634)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SgdUpdate)
    ->Args({535818, 0})
    ->Args({535818, 1})
    ->Args({3274634, 0})
    ->Args({3274634, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
