// Forward+backward per minibatch of the two models on 1x28x28 samples and of the synthetic sweep's mlp:128 on 3x32x32,
// and the final evaluation's work per 128 test samples (their normalisation and one forward pass, as train's
// evaluate_on), beside oneDNN's matmul at the MLP's largest layer shape (its limit), all on one thread. See docs/nn.md
// for the command and the figures.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/bulk_memory.hpp"
#include "data/stored_images.hpp"
#include "nn/model.hpp"
#include "serial_main.hpp"

namespace {

constexpr psbench::nn::InputShape kInput{1, 28, 28};
// The synthetic sweep's samples (docs/results), on which it trains mlp:128.
constexpr psbench::nn::InputShape kSyntheticInput{3, 32, 32};
constexpr int kClasses = 10;
constexpr int kThreads = 1;

void fill_uniform(std::vector<float>& values, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(-1.0F, 1.0F);
  for (float& v : values) v = distribution(generator);
}

// A minibatch of samples uniform in [-1, 1] and labels cycling through the classes.
struct Minibatch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

// samples rows of row_values floats (Model::input_row_values for a training batch, the sample's values otherwise).
Minibatch minibatch_of(int samples, std::size_t row_values, std::uint32_t seed) {
  Minibatch batch{std::vector<float>(static_cast<std::size_t>(samples) * row_values),
                  std::vector<std::int32_t>(static_cast<std::size_t>(samples))};
  fill_uniform(batch.images, seed);
  for (std::size_t i = 0; i < batch.labels.size(); ++i) batch.labels[i] = static_cast<std::int32_t>(i % kClasses);
  return batch;
}

void train_step(benchmark::State& state, const std::string& spec, psbench::nn::InputShape input) {
  const int batch = static_cast<int>(state.range(0));
  psbench::nn::Model model(spec, input, kClasses, batch, 1, kThreads);
  const Minibatch data = minibatch_of(batch, model.input_row_values(), 2);
  const float* images = data.images.data();
  const std::int32_t* labels = data.labels.data();
  (void)model.train_step(images, labels);  // first touch of the buffers and the scratchpad
  for (auto _ : state) benchmark::DoNotOptimize(model.train_step(images, labels));
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["samples/s"] = benchmark::Counter(iterations * batch, benchmark::Counter::kIsRate);
  state.counters["FLOP/s"] = benchmark::Counter(iterations * model.flops_per_step(), benchmark::Counter::kIsRate);
  state.counters["params"] = static_cast<double>(model.parameter_count());
  state.counters["flops_per_step"] = model.flops_per_step();
}

void BM_TrainStepMlp(benchmark::State& state) { train_step(state, "mlp:512,256", kInput); }
void BM_TrainStepCnn(benchmark::State& state) { train_step(state, "cnn", kInput); }
void BM_TrainStepMlp128(benchmark::State& state) { train_step(state, "mlp:128", kSyntheticInput); }

// What the final evaluation (train's evaluate_on) repeats per chunk of range(0) test samples: the chunk's uint8
// pixels normalised to the model's float input, then one call of Model::evaluate.
void evaluate_chunk(benchmark::State& state, const std::string& spec, psbench::nn::InputShape input) {
  const int chunk = static_cast<int>(state.range(0));
  psbench::nn::Model model(spec, input, kClasses, chunk, 1, kThreads);
  const psbench::data::SampleShape shape{input.channels, input.height, input.width};
  Minibatch data = minibatch_of(chunk, shape.values(), 4);
  psbench::BulkVector<std::uint8_t> pixels(data.images.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 37 % 256);
  const std::vector<double> mean(static_cast<std::size_t>(input.channels), 0.5);
  const std::vector<double> stddev(static_cast<std::size_t>(input.channels), 0.25);
  const auto stored = psbench::data::StoredImages::from_pixels(shape, std::move(pixels), mean, stddev);
  const auto count = static_cast<std::size_t>(chunk);
  (void)model.evaluate(data.images.data(), data.labels.data(), count);  // first touch of the pass's buffers
  for (auto _ : state) {
    stored.normalise(0, count, data.images);
    benchmark::DoNotOptimize(model.evaluate(data.images.data(), data.labels.data(), count));
  }
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * chunk, benchmark::Counter::kIsRate);
}

void BM_EvaluateMlp(benchmark::State& state) { evaluate_chunk(state, "mlp:512,256", kInput); }
void BM_EvaluateCnn(benchmark::State& state) { evaluate_chunk(state, "cnn", kInput); }
void BM_EvaluateMlp128(benchmark::State& state) { evaluate_chunk(state, "mlp:128", kSyntheticInput); }

/// dst[M x N] = src[M x K] * weights[K x N], plain row-major: the MLP's first layer at batch M as one matmul.
void BM_OneDnnMatmul(benchmark::State& state) {
  using dnnl::memory;
  const memory::dim m = state.range(0);
  const memory::dim k = state.range(1);
  const memory::dim n = state.range(2);
  omp_set_num_threads(kThreads);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc src_desc({m, k}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc weights_desc({k, n}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc dst_desc({m, n}, memory::data_type::f32, memory::format_tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_desc, weights_desc, dst_desc), engine);
  memory src(src_desc, engine);
  memory weights(weights_desc, engine);
  memory dst(dst_desc, engine);
  std::vector<float> values(static_cast<std::size_t>(std::max(m, n) * k));
  fill_uniform(values, 3);
  std::copy_n(values.begin(), m * k, static_cast<float*>(src.get_data_handle()));
  std::copy_n(values.begin(), k * n, static_cast<float*>(weights.get_data_handle()));
  const dnnl::matmul matmul(pd);
  const std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  matmul.execute(stream, args);  // first touch of the output and the scratchpad
  stream.wait();
  for (auto _ : state) {
    matmul.execute(stream, args);
    stream.wait();
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * static_cast<double>(m * k * n), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_TrainStepMlp)->Arg(32)->Arg(128)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainStepCnn)->Arg(32)->Arg(128)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainStepMlp128)->Arg(32)->Arg(128)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EvaluateMlp)->Arg(128)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EvaluateCnn)->Arg(128)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EvaluateMlp128)->Arg(128)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneDnnMatmul)->Args({128, 784, 512})->UseRealTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) { return psbench::bench::serial_benchmark_main(argc, argv); }
