#include "train_fixture.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "data/fashion_mnist.hpp"

namespace psbench::train::testing {
namespace {

std::string& path_storage() {
  static std::string path;
  return path;
}

std::string& scratch_storage() {
  static std::string dir;
  return dir;
}

// Converts the subset once on rank 0 before any test runs and removes the scratch folder at the end.
class SubsetEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const auto world = mpi::Communicator::world();
    std::string dir;
    if (world.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "psbench_train_test_XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) std::abort();
      dir = pattern;
      data::ConvertOptions options;
      options.out = dir + "/fashion_subset.h5";
      options.limit = kSubsetSamples;
      data::convert_fashion_mnist(options);
    }
    world.broadcast(dir, 0);
    scratch_storage() = dir;
    path_storage() = dir + "/fashion_subset.h5";
  }

  void TearDown() override {
    const auto world = mpi::Communicator::world();
    world.barrier();
    if (world.rank() == 0) std::filesystem::remove_all(scratch_storage());
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new SubsetEnvironment);

}  // namespace

const std::string& subset_path() { return path_storage(); }

const std::string& scratch_dir() { return scratch_storage(); }

TrainOptions small_run(Mode mode, const std::string& name) {
  TrainOptions options;
  options.data_path = subset_path();
  options.model_spec = "mlp:32";
  options.batch = kBatch;
  options.epochs = kEpochs;
  options.learning_rate = 0.01;
  options.momentum = mode == Mode::kAsync ? kAsyncMomentum : 0.9;
  options.mode = mode;
  options.seed = 11;
  options.out_path = scratch_dir() + "/" + name + ".json";
  options.quiet = true;
  return options;
}

mpi::Communicator first_ranks(const mpi::Communicator& world, int size) {
  const bool inside = world.rank() < size;
  return world.split(inside ? 0 : 1 + world.rank(), world.rank());
}

}  // namespace psbench::train::testing
