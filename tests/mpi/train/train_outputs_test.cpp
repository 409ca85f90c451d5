// What a run leaves behind: a results file with every key and sane values, a Chrome trace with one track
// per rank, and for bad input one collective error on every rank instead of a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/resources.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/collective_error.hpp"
#include "nn/onednn_info.hpp"
#include "results/file_io.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

TEST(TrainOutputs, ResultsFileHasEveryKeyAndTraceOneTrackPerRank) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kAsync, "outputs");
  options.epochs = 1;
  options.trace_path = scratch_dir() + "/outputs.trace.json";
  const std::chrono::microseconds spin_before = mpi::spin_budget();
  mpi::set_spin_budget(std::chrono::microseconds(1234));  // recorded, and short enough not to matter
  run_training(world, options);
  mpi::set_spin_budget(spin_before);
  if (world.rank() != 0) return;

  const auto results = read_json(options.out_path);
  const ::psbench::results::ResultsFile typed =
      ::psbench::results::read_results_file(options.out_path);  // the schema accepts it
  EXPECT_EQ(typed.format, 2);
  EXPECT_EQ(typed.per_rank.size(), static_cast<std::size_t>(world.size()));
  for (const char* key : {"config", "env", "model", "phases", "per_rank", "train", "server", "epochs", "load"}) {
    ASSERT_TRUE(results.contains(key)) << key;
  }
  EXPECT_EQ(results["config"]["model"], "mlp:32");
  EXPECT_EQ(results["config"]["batch"], kBatch);
  EXPECT_EQ(results["config"]["intra_node"], "shared-memory");
  EXPECT_EQ(results["env"]["ranks"], world.size());
  EXPECT_EQ(results["env"]["wait_spin_us"], 1234);
  EXPECT_EQ(results["env"]["cpu"], cpu_model_name());
  EXPECT_EQ(results["env"]["onednn_isa"], nn::onednn_isa());
  for (const char* library : {"mpi", "hdf5", "onednn", "psbench"}) {
    EXPECT_FALSE(results["env"]["libraries"][library].get<std::string>().empty()) << library;
  }
  EXPECT_EQ(results["model"]["parameters"], 784 * 32 + 32 + 32 * 10 + 10);
  const auto& phases = results["phases"];
  for (const char* phase :
       {"init_io", "init_total", "compute", "push", "pull", "compress", "server_update", "server_idle", "total"}) {
    ASSERT_TRUE(phases.contains(phase)) << phase;
    EXPECT_GE(phases[phase].get<double>(), 0.0) << phase;
    EXPECT_LE(phases[phase].get<double>(), phases["total"].get<double>()) << phase;
  }
  EXPECT_GT(phases["init_io"].get<double>(), 0.0);
  EXPECT_GT(phases["compute"].get<double>(), 0.0);
  EXPECT_GT(phases["push"].get<double>(), 0.0);
  EXPECT_GT(phases["server_update"].get<double>(), 0.0);
  ASSERT_EQ(results["per_rank"].size(), static_cast<std::size_t>(world.size()));
  for (int rank = 0; rank < world.size(); ++rank) {
    const auto& entry = results["per_rank"][static_cast<std::size_t>(rank)];
    EXPECT_EQ(entry["rank"], rank);
    EXPECT_EQ(entry["role"], rank == 0 ? "server" : "worker");
    EXPECT_GT(entry["peak_rss_bytes"].get<std::uint64_t>(), 1U << 20U);
  }
  EXPECT_GT(results["train"]["samples_per_s"].get<double>(), 0.0);
  EXPECT_GT(results["server"]["updates_per_s"].get<double>(), 0.0);
  ASSERT_EQ(results["load"].size(), static_cast<std::size_t>(world.size() - 1));
  for (const auto& load : results["load"]) EXPECT_GT(load["bytes"].get<std::uint64_t>(), 0U);

  const auto trace = read_json(options.trace_path);
  std::set<int> named_tracks;
  std::set<int> tracks_with_slices;
  for (const auto& event : trace["traceEvents"]) {
    EXPECT_EQ(event["pid"], 0);
    if (event["ph"] == "M" && event["name"] == "thread_name") named_tracks.insert(event["tid"].get<int>());
    if (event["ph"] == "X") {
      tracks_with_slices.insert(event["tid"].get<int>());
      EXPECT_GE(event["dur"].get<double>(), 0.0);
    }
  }
  std::set<int> all_ranks;
  for (int rank = 0; rank < world.size(); ++rank) all_ranks.insert(rank);
  EXPECT_EQ(named_tracks, all_ranks);
  EXPECT_EQ(tracks_with_slices, all_ranks);
}

void expect_collective_error(const TrainOptions& options, const std::string& fragment) {
  const auto world = mpi::Communicator::world();
  try {
    run_training(world, options);
    ADD_FAILURE() << "expected an error containing '" << fragment << "'";
  } catch (const mpi::CollectiveUserError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(TrainOutputs, BatchLargerThanAPartitionIsOneErrorOnEveryRank) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kAsync, "big_batch");
  const int workers = world.size() - 1;
  options.batch = kSubsetSamples / workers + 1;  // the whole split still holds a batch, a partition does not
  expect_collective_error(options, "is larger than worker");
}

TEST(TrainOutputs, UnknownModelSpecIsOneErrorOnEveryRank) {
  TrainOptions options = small_run(Mode::kSync, "bad_spec");
  options.model_spec = "transformer:12";
  expect_collective_error(options, "transformer");
}

TEST(TrainOutputs, MissingFileIsOneErrorOnEveryRank) {
  TrainOptions options = small_run(Mode::kAsync, "missing");
  options.data_path = scratch_dir() + "/no_such_file.h5";
  expect_collective_error(options, "no_such_file.h5");
}

// A learning rate of 1e9 makes the loss non-finite within a few steps: every rank (servers and the workers
// that did not diverge too) gets the same error naming a rank and its loss, and no results file appears.
void expect_divergence_everywhere(TrainOptions options) {
  options.learning_rate = 1e9;
  options.epochs = 2;
  std::filesystem::remove(options.out_path);
  expect_collective_error(options, "the run diverged; try a lower --lr (now 1e+09)");
  EXPECT_FALSE(std::filesystem::exists(options.out_path)) << options.out_path;
}

TEST(TrainOutputs, DivergingAsyncRunStopsEveryRank) {
  expect_divergence_everywhere(small_run(Mode::kAsync, "diverged_async"));
}

TEST(TrainOutputs, DivergingAsyncRunOverMessagesStopsEveryRank) {
  TrainOptions options = small_run(Mode::kAsync, "diverged_async_messages");
  options.intra_node = IntraNode::kMessages;
  expect_divergence_everywhere(options);
}

TEST(TrainOutputs, DivergingSyncRunStopsEveryRank) {
  expect_divergence_everywhere(small_run(Mode::kSync, "diverged_sync"));
}

// A diverged worker joins the next block's allreduce with NaN (or the final one), which every worker sees.
TEST(TrainOutputs, DivergingBmufRunStopsEveryRank) {
  TrainOptions options = small_run(Mode::kBmuf, "diverged_bmuf");
  options.block_samples = 4 * kBatch;
  expect_divergence_everywhere(options);
}

TEST(TrainOutputs, DivergingAveragingRunStopsEveryRank) {
  TrainOptions options = small_run(Mode::kAverage, "diverged_average");
  options.block_samples = 1000 * kBatch;  // one block: the NaN meets the final synchronisation
  expect_divergence_everywhere(options);
}

}  // namespace
}  // namespace psbench::train::testing
