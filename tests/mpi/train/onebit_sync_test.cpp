// Sync mode with --compress onebit: the striped exchange, driven directly with known gradients, gives every worker
// the same parameters, bit for bit those of a serial reference of the same quantization (every worker's gradient
// quantized with its residual, each stripe's dequantized sum re-quantized with a second residual), within float
// rounding those of 1-bit SGD written out from its definition over CNTK's columns (support/onebit_reference.hpp),
// and hands MPI the closed-form number of bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "compress/onebit.hpp"
#include "mpi/communicator.hpp"
#include "onebit_reference.hpp"
#include "ps/sgd.hpp"
#include "train/exchange/gradient_exchange.hpp"

namespace psbench::train {
namespace {

constexpr int kSteps = 4;
const ps::SgdConfig kSgd{0.1F, 0.5F};

// Matrices (rows x width) and vectors: a layer of 40 inputs to 5 units (two tiles of 16 columns at the widest
// vectors, then 8 alone) and its bias, a layer of 7 inputs to 3 units and its bias, a vector of 33 and a lone value.
const std::vector<std::pair<std::size_t, std::size_t>> kMatrices{{5, 40}, {5, 1}, {3, 7}, {3, 1}, {33, 1}, {1, 1}};

compress::ColumnLayout test_columns() {
  std::vector<compress::Matrix> matrices;
  for (const auto& [rows, width] : kMatrices) matrices.push_back({rows, width});
  return compress::ColumnLayout(matrices);
}

// Worker w's gradient at a step: values of both signs that differ between workers and steps.
float gradient_value(int worker, int step, std::size_t i) {
  return std::sin(0.37F * static_cast<float>(i) + 1.3F * static_cast<float>(worker) +
                  0.71F * static_cast<float>(step)) +
         0.05F * static_cast<float>(worker);
}

std::vector<float> initial_parameters(std::size_t size) {
  std::vector<float> parameters(size);
  for (std::size_t i = 0; i < size; ++i) parameters[i] = 0.01F * static_cast<float>(i % 17);
  return parameters;
}

// What W workers end with, computed in one process with the same kernels in the same order.
std::vector<float> serial_reference(const compress::ColumnLayout& layout, int workers, bool feedback) {
  const std::vector<std::size_t> bounds = compress::stripe_bounds(layout, workers);
  const auto size = layout.values();
  std::vector<std::vector<float>> residuals(static_cast<std::size_t>(workers), std::vector<float>(feedback ? size : 0));
  std::vector<std::vector<float>> sum_residuals;
  std::vector<compress::ColumnLayout> stripes;
  for (int j = 0; j < workers; ++j) {
    stripes.push_back(layout.slice(bounds[static_cast<std::size_t>(j)], bounds[static_cast<std::size_t>(j) + 1]));
    sum_residuals.emplace_back(feedback ? stripes.back().values() : 0, 0.0F);
  }
  std::vector<float> parameters = initial_parameters(size);
  ps::SgdOptimizer optimizer(size, kSgd);
  std::vector<std::vector<std::uint32_t>> packed(static_cast<std::size_t>(workers),
                                                 std::vector<std::uint32_t>(layout.words()));
  std::vector<std::uint32_t> gathered(layout.words());
  std::vector<float> reduced(size);
  for (int step = 0; step < kSteps; ++step) {
    for (int w = 0; w < workers; ++w) {
      std::vector<float> gradient(size);
      for (std::size_t i = 0; i < size; ++i) gradient[i] = gradient_value(w, step, i);
      compress::quantize_onebit(layout, gradient, residuals[static_cast<std::size_t>(w)],
                                packed[static_cast<std::size_t>(w)]);
    }
    for (int j = 0; j < workers; ++j) {
      const compress::ColumnLayout& stripe = stripes[static_cast<std::size_t>(j)];
      const std::size_t first_word = layout.word_begin(bounds[static_cast<std::size_t>(j)]);
      std::vector<float> sum(stripe.values(), 0.0F);
      for (int w = 0; w < workers; ++w) {
        const std::span<const std::uint32_t> all(packed[static_cast<std::size_t>(w)]);
        compress::dequantize_add_onebit(stripe, all.subspan(first_word, stripe.words()), sum);
      }
      compress::quantize_onebit(stripe, sum, sum_residuals[static_cast<std::size_t>(j)],
                                std::span(gathered).subspan(first_word, stripe.words()));
    }
    compress::dequantize_onebit(layout, gathered, reduced);
    optimizer.apply_scaled(parameters, reduced, 1.0F / static_cast<float>(workers));
  }
  return parameters;
}

// The same from the definition: each worker's gradient quantized per column with its residual, the W
// reconstructions summed, the sum quantized per column with a second residual.
std::vector<float> definition_reference(std::size_t size, int workers, bool feedback) {
  const std::vector<reference::IndexColumn> columns = reference::onebit_columns(kMatrices);
  std::vector<std::vector<float>> residuals(static_cast<std::size_t>(workers), std::vector<float>(feedback ? size : 0));
  std::vector<float> sum_residual(feedback ? size : 0);
  std::vector<float> parameters = initial_parameters(size);
  ps::SgdOptimizer optimizer(size, kSgd);
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> sum(size, 0.0F);
    for (int w = 0; w < workers; ++w) {
      std::vector<float> gradient(size);
      for (std::size_t i = 0; i < size; ++i) gradient[i] = gradient_value(w, step, i);
      const std::vector<float> q =
          reference::onebit_reconstruction(columns, gradient, residuals[static_cast<std::size_t>(w)]);
      for (std::size_t i = 0; i < size; ++i) sum[i] += q[i];
    }
    std::vector<float> reduced = reference::onebit_reconstruction(columns, sum, sum_residual);
    optimizer.apply_scaled(parameters, reduced, 1.0F / static_cast<float>(workers));
  }
  return parameters;
}

void expect_reference(bool feedback) {
  const auto world = mpi::Communicator::world();
  const compress::ColumnLayout layout = test_columns();
  const std::size_t size = layout.values();
  std::vector<float> gradients(size);
  std::vector<float> parameters = initial_parameters(size);
  const auto exchange = make_onebit_sync_exchange(world, gradients, layout, kSgd, kSteps, feedback);
  PhaseTimer timer;
  for (int step = 0; step < kSteps; ++step) {
    for (std::size_t i = 0; i < size; ++i) gradients[i] = gradient_value(world.rank(), step, i);
    exchange->exchange(gradients, parameters, StepInfo{}, timer);
  }
  EXPECT_EQ(parameters, serial_reference(layout, world.size(), feedback));
  const std::vector<float> defined = definition_reference(size, world.size(), feedback);
  for (std::size_t i = 0; i < size; ++i) ASSERT_NEAR(parameters[i], defined[i], 1e-5F) << "value " << i;
  EXPECT_GT(timer.seconds(Phase::kCompress), 0.0);
  EXPECT_EQ(timer.count(Phase::kCompress), 3U * kSteps);  // quantize; sum and re-quantize; dequantize

  // Per step each worker sends every other worker that worker's stripe of its packed gradient, and its own stripe of
  // the packed sum to each of the W - 1 others; it receives as many bytes.
  const std::vector<std::size_t> bounds = compress::stripe_bounds(layout, world.size());
  const auto own = static_cast<std::size_t>(world.rank());
  const std::size_t own_words = layout.word_begin(bounds[own + 1]) - layout.word_begin(bounds[own]);
  const std::size_t per_step =
      (layout.words() - own_words + static_cast<std::size_t>(world.size() - 1) * own_words) * sizeof(std::uint32_t);
  EXPECT_EQ(exchange->totals().bytes_sent, kSteps * per_step);
  EXPECT_EQ(exchange->totals().bytes_received, kSteps * per_step);
}

TEST(OneBitSync, EveryWorkerGetsTheSerialReferenceWithErrorFeedback) { expect_reference(true); }

TEST(OneBitSync, EveryWorkerGetsTheSerialReferenceWithoutErrorFeedback) { expect_reference(false); }

// A worker whose loss was not finite joins the step with a NaN: every worker stops, none applies the step.
TEST(OneBitSync, AnAbortStopsEveryWorker) {
  const auto world = mpi::Communicator::world();
  const compress::ColumnLayout layout = test_columns();
  std::vector<float> gradients(layout.values(), 0.5F);
  std::vector<float> parameters = initial_parameters(layout.values());
  const auto exchange = make_onebit_sync_exchange(world, gradients, layout, kSgd, 1, true);
  PhaseTimer timer;
  if (world.rank() == world.size() - 1) {
    exchange->abort();
  } else {
    exchange->exchange(gradients, parameters, StepInfo{}, timer);
    EXPECT_TRUE(exchange->stopped());
    EXPECT_EQ(parameters, initial_parameters(layout.values()));
  }
}

}  // namespace
}  // namespace psbench::train
