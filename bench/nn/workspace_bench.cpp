// What oneDNN's per-call workspace costs a training step: the same step with the allocations that primitives
// make while executing served by glibc (as in psbench) and by a pre-touched arena (no allocation cost), side
// by side. On AVX2 oneDNN 2.6 runs the fully connected layers as gemm:jit, which allocates its packing buffers
// in every call; on AVX-512 and AMX it picks brgemm, which allocates nothing. See docs/nn.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "allocation_probe.hpp"
#include "nn/model.hpp"
#include "nn/onednn_info.hpp"

namespace {

constexpr psbench::nn::InputShape kInput{1, 28, 28};
constexpr int kClasses = 10;

void train_step(benchmark::State& state, const std::string& spec) {
  const int batch = static_cast<int>(state.range(0));
  const bool arena = state.range(1) != 0;
  psbench::nn::Model model(spec, kInput, kClasses, batch, 1, 1);
  const std::vector<float> images(static_cast<std::size_t>(batch) * 28 * 28, 0.25F);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % kClasses);
  psbench::allocation_probe::use_workspace_arena(arena);
  (void)model.train_step(images.data(), labels.data());
  psbench::allocation_probe::start();
  (void)model.train_step(images.data(), labels.data());
  const auto counts = psbench::allocation_probe::stop();
  for (auto _ : state) benchmark::DoNotOptimize(model.train_step(images.data(), labels.data()));
  psbench::allocation_probe::use_workspace_arena(false);
  state.counters["workspace_allocations"] = static_cast<double>(counts.workspace_allocations);
  state.counters["workspace_bytes"] = static_cast<double>(counts.workspace_bytes);
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * batch, benchmark::Counter::kIsRate);
  state.SetLabel(psbench::nn::onednn_isa() + ", " + (arena ? "arena" : "glibc"));
}

void BM_WorkspaceMlp(benchmark::State& state) { train_step(state, "mlp:512,256"); }
void BM_WorkspaceCnn(benchmark::State& state) { train_step(state, "cnn"); }

}  // namespace

BENCHMARK(BM_WorkspaceMlp)
    ->ArgsProduct({{32, 128}, {0, 1}})
    ->ArgNames({"batch", "arena"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_WorkspaceCnn)
    ->ArgsProduct({{32, 128}, {0, 1}})
    ->ArgNames({"batch", "arena"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
