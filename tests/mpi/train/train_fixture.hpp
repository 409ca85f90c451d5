#pragma once

#include <string>

#include "mpi/communicator.hpp"
#include "train/driver.hpp"
#include "train/train_options.hpp"

namespace psbench::train::testing {

/// Training samples of the Fashion-MNIST subset the tests use (odd, so partitions are uneven).
inline constexpr int kSubsetSamples = 3001;
/// Batch of the tests: divides no partition, so every worker runs a smaller last batch.
inline constexpr int kBatch = 25;
/// Epochs of the tests.
inline constexpr int kEpochs = 3;
/// Test accuracy every run must reach on the subset (chance is 10%).
inline constexpr double kAccuracyBar = 0.70;
/// Momentum of the async runs (the others use 0.9). Stale gradients add momentum of their own
/// (running.md, "Hyperparameters in async mode"): with 3 workers at 0.9 the final training loss was
/// 0.71-0.80 over 8 runs and the test accuracy 0.69-0.76, around the bar; at 0.5 the loss was 0.56-0.57
/// (chosen on it) and the accuracy 0.79-0.80.
inline constexpr double kAsyncMomentum = 0.5;

/// The Fashion-MNIST subset written once per test binary (rank 0 converts, every rank gets the path).
const std::string& subset_path();
/// A folder private to this test binary run, for results and traces.
const std::string& scratch_dir();

/// Options of a small, fast run on the subset: mlp:32, lr 0.01, momentum 0.9 (kAsyncMomentum in async
/// mode), quiet, results under scratch_dir()/name.json.
TrainOptions small_run(Mode mode, const std::string& name);

/// A communicator of the given world ranks [0, size) (others get a communicator of their own and are not
/// meant to train on it); collective over world.
mpi::Communicator first_ranks(const mpi::Communicator& world, int size);

}  // namespace psbench::train::testing
