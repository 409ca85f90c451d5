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

/// The Fashion-MNIST subset written once per test binary (rank 0 converts, every rank gets the path).
const std::string& subset_path();
/// A folder private to this test binary run, for results and traces.
const std::string& scratch_dir();

/// Options of a small, fast run on the subset: mlp:32, quiet, results under scratch_dir()/name.json.
TrainOptions small_run(Mode mode, const std::string& name);

/// A communicator of the given world ranks [0, size) (others get a communicator of their own and are not
/// meant to train on it); collective over world.
mpi::Communicator first_ranks(const mpi::Communicator& world, int size);

}  // namespace psbench::train::testing
