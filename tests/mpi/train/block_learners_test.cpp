// The block learners (bmuf, average) over MPI: after every block, and after an epoch's partial last block, each rank
// holds the same parameters, equal to a serial reference that trains each worker's block alone and combines them as
// CNTK does (BMUF's update written out from its equations, not train's code); and a training run reaches the bar,
// records its settings and moves the closed form's bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/phase_timer.hpp"
#include "nn/model.hpp"
#include "ps/sgd.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

constexpr int kStepBatch = 8;
constexpr int kBlockSteps = 3;
constexpr nn::InputShape kInput{1, 4, 4};
constexpr int kClasses = 3;
constexpr ps::SgdConfig kSgd{0.05F, 0.9F};

// Worker w's batch at step s: values that differ between workers and steps.
std::vector<float> images(int worker, int step) {
  std::vector<float> values(static_cast<std::size_t>(kStepBatch) * 16);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] =
        std::sin(0.37F * static_cast<float>(i) + 1.3F * static_cast<float>(worker) + 0.7F * static_cast<float>(step));
  }
  return values;
}

std::vector<std::int32_t> labels(int worker, int step) {
  std::vector<std::int32_t> values(kStepBatch);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>((i + worker + step) % kClasses);
  return values;
}

// A block: its first step, counted over the whole run, and its steps.
struct Block {
  int first = 0;
  int steps = 0;
};

// The blocks of epochs of epoch_steps steps: kBlockSteps at a time, and what is left at an epoch's end.
std::vector<Block> blocks_of(int epochs, int epoch_steps) {
  std::vector<Block> blocks;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int first = 0; first < epoch_steps; first += kBlockSteps) {
      blocks.push_back({epoch * epoch_steps + first, std::min(kBlockSteps, epoch_steps - first)});
    }
  }
  return blocks;
}

// Worker w trains block b alone from start, with its own momentum.
std::vector<float> train_block(int worker, Block block, std::span<const float> start, ps::SgdOptimizer& optimizer) {
  nn::Model model("mlp:8", kInput, kClasses, kStepBatch, 1, 1);
  std::copy(start.begin(), start.end(), model.parameters().begin());
  for (int s = 0; s < block.steps; ++s) {
    const int step = block.first + s;
    (void)model.train_step(images(worker, step).data(), labels(worker, step).data());
    optimizer.apply(model.parameters(), model.gradients());
  }
  const std::span<const float> trained = model.parameters();
  return {trained.begin(), trained.end()};
}

// Each worker reports kStepBatch - w samples a step (the exchange weighs by what it is told), so averaging's
// shares differ between workers.
std::uint32_t reported_samples(int worker) { return static_cast<std::uint32_t>(kStepBatch - worker); }

// BMUF's block update written out from Chen and Huo's equations as CNTK runs them (not train's BlockMomentum): with
// sum the workers' summed deltas w_prev - w, smoothed = bm smoothed + (1 - bm) blr sum, w = w_prev - smoothed, and
// with Nesterov w -= bm smoothed; the next block's deltas are taken from w.
struct ReferenceBmuf {
  std::vector<float> previous;  // w_prev
  std::vector<float> smoothed;
  float momentum = 0.0F;
  float learning_rate = 1.0F;
  bool nesterov = true;

  std::vector<float> step(const std::vector<float>& sum) {
    for (std::size_t i = 0; i < sum.size(); ++i) {
      smoothed[i] = momentum * smoothed[i] + (1.0F - momentum) * learning_rate * sum[i];
      previous[i] = previous[i] - smoothed[i] - (nesterov ? momentum : 0.0F) * smoothed[i];
    }
    return previous;
  }
};

// The serial reference of block b from start: BMUF's update of the workers' summed deltas, after which every
// worker's momentum restarts from zero, or the model average weighted by samples, which keeps the momenta.
std::vector<float> reference_block(BlockLearner learner, Block block, std::span<const float> start, ReferenceBmuf& bmuf,
                                   std::vector<ps::SgdOptimizer>& optimizers) {
  const auto workers = static_cast<int>(optimizers.size());
  std::vector<float> combined(start.size(), 0.0F);
  std::uint64_t total = 0;
  for (int w = 0; w < workers; ++w) total += reported_samples(w);
  for (int w = 0; w < workers; ++w) {
    ps::SgdOptimizer& optimizer = optimizers[static_cast<std::size_t>(w)];
    const std::vector<float> trained = train_block(w, block, start, optimizer);
    if (learner == BlockLearner::kMomentum) optimizer.reset_velocity();
    const auto share = static_cast<float>(static_cast<double>(reported_samples(w)) / static_cast<double>(total));
    for (std::size_t i = 0; i < combined.size(); ++i) {
      combined[i] += learner == BlockLearner::kMomentum ? bmuf.previous[i] - trained[i] : share * trained[i];
    }
  }
  if (learner == BlockLearner::kAverage) return combined;
  return bmuf.step(combined);
}

// Runs epochs of epoch_steps steps; after each block every rank holds the serial reference's parameters.
void expect_blocks_match_the_reference(BlockLearner learner, bool nesterov, int epochs, int epoch_steps) {
  const auto world = mpi::Communicator::world();
  const int workers = world.size();
  nn::Model model("mlp:8", kInput, kClasses, kStepBatch, 1, 1);
  const std::vector<float> initial(model.parameters().begin(), model.parameters().end());
  BlockSettings settings;
  settings.learner = learner;
  settings.block_samples = static_cast<std::uint64_t>(kBlockSteps) * kStepBatch;
  settings.momentum = 1.0F - 1.0F / static_cast<float>(workers);
  settings.nesterov = nesterov;
  const auto exchange = make_block_exchange(world, model.parameters(), kSgd, settings,
                                            static_cast<std::uint64_t>(epoch_steps * kStepBatch), kStepBatch);
  ASSERT_EQ(exchange->steps_per_epoch(0), static_cast<std::size_t>(epoch_steps));
  const std::vector<Block> blocks = blocks_of(epochs, epoch_steps);
  ReferenceBmuf reference_bmuf{initial, std::vector<float>(initial.size(), 0.0F), settings.momentum,
                               settings.learning_rate, nesterov};
  std::vector<ps::SgdOptimizer> optimizers;
  for (int w = 0; w < workers; ++w) optimizers.emplace_back(initial.size(), kSgd);
  std::vector<float> reference = initial;
  PhaseTimer timer;
  for (std::size_t block = 0; block < blocks.size(); ++block) {
    for (int s = 0; s < blocks[block].steps; ++s) {
      const int step = blocks[block].first + s;
      StepInfo info;
      info.step = static_cast<std::size_t>(step % epoch_steps);
      info.samples = reported_samples(world.rank());
      info.loss = model.train_step(images(world.rank(), step).data(), labels(world.rank(), step).data());
      exchange->exchange(model.gradients(), model.parameters(), info, timer);
    }
    reference = reference_block(learner, blocks[block], reference, reference_bmuf, optimizers);
    // Every rank holds the same values: the smallest and largest over ranks agree.
    std::vector<float> low(model.parameters().begin(), model.parameters().end());
    std::vector<float> high = low;
    world.allreduce(std::span<float>(low), mpi::ReduceOp::kMin);
    world.allreduce(std::span<float>(high), mpi::ReduceOp::kMax);
    EXPECT_EQ(low, high) << "block " << block;
    // The allreduce may add three or more values in another order than the reference.
    float worst = 0.0F;
    for (std::size_t i = 0; i < reference.size(); ++i) {
      worst = std::max(worst, std::abs(model.parameters()[i] - reference[i]) / (1.0F + std::abs(reference[i])));
    }
    if (workers <= 2) {
      EXPECT_EQ(worst, 0.0F) << "block " << block;
    } else {
      EXPECT_LE(worst, 1e-6F) << "block " << block;
    }
  }
  EXPECT_NE(reference, initial);
  const ExchangeTotals totals = exchange->totals();
  const std::uint64_t count_bytes = learner == BlockLearner::kAverage ? ring_allreduce_bytes(8, workers) : 0;
  EXPECT_EQ(totals.bytes_sent, blocks.size() * (ring_allreduce_bytes(initial.size() * 4, workers) + count_bytes));
  EXPECT_EQ(totals.bytes_received, totals.bytes_sent);
  EXPECT_GT(timer.seconds(Phase::kPush), 0.0);
}

TEST(BlockLearners, BmufWithNesterovEndsEveryBlockAtTheSerialReference) {
  expect_blocks_match_the_reference(BlockLearner::kMomentum, true, 1, 2 * kBlockSteps);
}

TEST(BlockLearners, BmufWithoutNesterovEndsEveryBlockAtTheSerialReference) {
  expect_blocks_match_the_reference(BlockLearner::kMomentum, false, 1, 2 * kBlockSteps);
}

TEST(BlockLearners, AveragingEndsEveryBlockAtTheSampleWeightedMean) {
  expect_blocks_match_the_reference(BlockLearner::kAverage, false, 1, 2 * kBlockSteps);
}

// Epochs of 4 steps in blocks of 3: each epoch ends with a partial block of 1 step, synchronised like a whole one.
TEST(BlockLearners, BmufSynchronisesTheEpochsPartialLastBlock) {
  expect_blocks_match_the_reference(BlockLearner::kMomentum, true, 2, kBlockSteps + 1);
}

TEST(BlockLearners, AveragingSynchronisesTheEpochsPartialLastBlock) {
  expect_blocks_match_the_reference(BlockLearner::kAverage, false, 2, kBlockSteps + 1);
}

// Synchronisations of a run: every block of whole batches ends where its samples are reached, and each epoch ends
// one more where its last block is partial: ceil(partition / block) per epoch, the largest partition's.
std::uint64_t synchronisations(const nlohmann::json& results, std::uint64_t block_samples) {
  std::uint64_t largest = 0;
  for (const auto& rank : results["per_rank"])
    largest = std::max(largest, rank["worker"]["samples"].get<std::uint64_t>());
  EXPECT_EQ(block_samples % kBatch, 0U);
  return kEpochs * ((largest + block_samples - 1) / block_samples);
}

// Blocks of the training runs: 7 batches, which divide no epoch (the largest partition takes 61 steps on 2 workers, 41
// on 3), so every epoch ends with a partial block of 5 or 6 steps. (With 10 batches the partial block is one step of
// one sample, and on 3 workers bmuf's extra Nesterov look-ahead there takes the run below the bar.)
constexpr std::uint64_t kRunBlockSamples = 7 * kBatch;

void expect_training_run(Mode mode, const std::string& name) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(mode, name);
  options.block_samples = kRunBlockSamples;
  const TrainOutcome outcome = run_training(world, options);
  if (world.rank() != 0) return;
  const auto& results = outcome.results;
  EXPECT_GE(results["train"]["test_accuracy"].get<double>(), kAccuracyBar);
  EXPECT_EQ(results["config"]["mode"], mode_name(mode));
  EXPECT_EQ(results["config"]["block_samples"], kRunBlockSamples);
  if (mode == Mode::kBmuf) {
    EXPECT_DOUBLE_EQ(results["config"]["block_momentum"].get<double>(), 1.0 - 1.0 / world.size());
    EXPECT_EQ(results["config"]["block_lr"], 1.0);
    EXPECT_EQ(results["config"]["nesterov"], true);
  }
  const std::uint64_t syncs = synchronisations(results, kRunBlockSamples);
  const std::uint64_t per_sync =
      ring_allreduce_bytes(results["model"]["parameters"].get<std::uint64_t>() * sizeof(float), world.size()) +
      (mode == Mode::kAverage ? ring_allreduce_bytes(sizeof(std::uint64_t), world.size()) : 0);
  for (const auto& rank : results["per_rank"]) {
    EXPECT_EQ(rank["worker"]["exchange"]["bytes_sent"], syncs * per_sync);
    EXPECT_EQ(rank["worker"]["exchange"]["bytes_received"], syncs * per_sync);
    EXPECT_GT(rank["phases"]["push"].get<double>(), 0.0);
  }
  EXPECT_EQ(results["train"]["visits"]["exact_epochs"], kEpochs);
}

TEST(BlockLearners, BmufTrainingRunReachesTheBarAndMovesOneAllreducePerBlock) {
  expect_training_run(Mode::kBmuf, "bmuf");
}

TEST(BlockLearners, AveragingTrainingRunReachesTheBarAndMovesOneAllreducePerBlock) {
  expect_training_run(Mode::kAverage, "average");
}

}  // namespace
}  // namespace psbench::train::testing
