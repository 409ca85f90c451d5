// What the trainer's per-batch normalisation costs: assembling a shuffled batch of 28 x 28 samples from
// uint8 pixels through the lookup table (what BatchAssembler does now that samples stay in their stored
// type) against copying float32 samples (what it did when the loader converted the whole set), beside one
// mlp:512,256 train step of the same batch, on one thread. See docs/data.md for the command and figures.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "common/bulk_memory.hpp"
#include "data/loader.hpp"
#include "nn/model.hpp"
#include "train/batch_assembler.hpp"

namespace {

constexpr psbench::data::SampleShape kShape{1, 28, 28};
constexpr std::size_t kSamples = 60000;  // as Fashion-MNIST: the set does not fit in the caches
constexpr int kClasses = 10;

// Random samples in the stored type: uint8 pixels, or float32 values normalised from the same pixels.
psbench::data::Samples random_samples(bool float32) {
  std::mt19937 generator(3);
  psbench::BulkVector<std::uint8_t> pixels(kSamples * kShape.values());
  for (auto& p : pixels) p = static_cast<std::uint8_t>(generator() & 0xFFU);
  const std::vector<double> mean{0.29};
  const std::vector<double> stddev{0.35};
  psbench::data::Samples samples;
  samples.shape = kShape;
  samples.num_classes = kClasses;
  samples.total_samples = kSamples;
  samples.labels.resize(kSamples);
  for (std::size_t i = 0; i < kSamples; ++i) samples.labels[i] = static_cast<std::int32_t>(i % kClasses);
  samples.images = psbench::data::StoredImages::from_pixels(kShape, std::move(pixels), mean, stddev);
  if (float32) {
    psbench::BulkVector<float> values(kSamples * kShape.values());
    samples.images.normalise(0, kSamples, values);
    samples.images = psbench::data::StoredImages::from_values(kShape, std::move(values));
  }
  return samples;
}

std::vector<std::uint32_t> shuffled_indices() {
  std::vector<std::uint32_t> order(kSamples);
  std::iota(order.begin(), order.end(), 0U);
  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  return order;
}

// Arguments: stored type (0 uint8, 1 float32), batch.
void BM_AssembleBatch(benchmark::State& state) {
  const psbench::data::Samples samples = random_samples(state.range(0) == 1);
  const auto batch = static_cast<std::size_t>(state.range(1));
  const std::vector<std::uint32_t> order = shuffled_indices();
  psbench::train::BatchAssembler assembler(samples, batch, kShape.values());
  std::size_t first = 0;
  for (auto _ : state) {
    if (first + batch > order.size()) first = 0;
    assembler.fill(std::span<const std::uint32_t>(order).subspan(first, batch));
    benchmark::DoNotOptimize(assembler.images());
    first += batch;
  }
  const auto samples_done = static_cast<double>(state.iterations()) * static_cast<double>(batch);
  state.counters["samples/s"] = benchmark::Counter(samples_done, benchmark::Counter::kIsRate);
  state.counters["bytes_per_second"] = benchmark::Counter(
      samples_done * static_cast<double>(kShape.values() * sizeof(float)), benchmark::Counter::kIsRate);
}

// The step the batch feeds: mlp:512,256 forward and backward (argument: batch).
void BM_TrainStep(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  psbench::nn::Model model("mlp:512,256", {1, 28, 28}, kClasses, batch, 1, 1);
  const psbench::data::Samples samples = random_samples(false);
  psbench::train::BatchAssembler assembler(samples, static_cast<std::size_t>(batch), model.input_row_values());
  const std::vector<std::uint32_t> order = shuffled_indices();
  assembler.fill(std::span<const std::uint32_t>(order).first(static_cast<std::size_t>(batch)));
  (void)model.train_step(assembler.images(), assembler.labels());  // first touch of the buffers
  for (auto _ : state) benchmark::DoNotOptimize(model.train_step(assembler.images(), assembler.labels()));
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * batch, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_AssembleBatch)->ArgsProduct({{0, 1}, {64, 128}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TrainStep)->Arg(64)->Arg(128)->Unit(benchmark::kMicrosecond);
