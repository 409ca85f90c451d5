// Checkpoints over MPI: every rank writes its slice into one file through parallel HDF5 and it reads back
// whole; a sync run resumed mid-epoch ends bit-identical to the run that wrote the checkpoint; an async run
// resumes re-sharded onto another server count; another run's checkpoint is refused on every rank.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/hdf5_attribute.hpp"
#include "data/hdf5_handle.hpp"
#include "mpi/collective_error.hpp"
#include "ps/shard_layout.hpp"
#include "results/file_io.hpp"
#include "train/checkpoint/checkpoint_file.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

constexpr std::size_t kValues = 1001;

CheckpointHeader round_trip_header(int writers) {
  CheckpointHeader header;
  header.model = "mlp:8";
  header.input = {1, 28, 28};
  header.classes = 10;
  header.training_samples = 600;
  header.parameters = kValues;
  header.seed = 0xFEDCBA9876543210ULL;  // needs all 64 bits
  header.batch = 20;
  header.mode = "async";
  header.workers = 3;
  header.servers = writers;
  header.learning_rate = 0.01;
  header.momentum = 0.5;
  header.epoch = 2;
  header.step = 123;
  return header;
}

// Writes every rank's slice of values v(i) = i / 7 (velocity -i) and reads the file back on rank 0.
TEST(CheckpointFile, EveryRankWritesItsSliceOfOneFile) {
  const auto world = mpi::Communicator::world();
  const std::string path = scratch_dir() + "/round_trip.h5";
  const ps::ShardLayout layout(kValues, world.size());
  const std::size_t begin = layout.begin(world.rank());
  std::vector<float> values(layout.size(world.rank()));
  std::vector<float> velocity(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(begin + i) / 7.0F;
    velocity[i] = -static_cast<float>(begin + i);
  }
  const std::vector<WorkerPosition> positions{{2, 0}, {1, 39}, {2, 1}};
  CheckpointSlice slice{begin,
                        values,
                        velocity,
                        100U + static_cast<std::uint64_t>(world.rank()),
                        200U + static_cast<std::uint64_t>(world.rank()),
                        positions};
  const CheckpointHeader header = round_trip_header(world.size());
  ASSERT_TRUE(write_checkpoint(world.native(), path, header, slice, true));
  // A writer that is not valid (its run is stopping) skips the write on all of them: the file stays.
  slice.version = 999;
  EXPECT_FALSE(write_checkpoint(world.native(), path, header, slice, world.rank() != world.size() - 1));
  if (world.rank() != 0) return;
  EXPECT_FALSE(std::filesystem::exists(checkpoint_temporary_path(path)));
  const Checkpoint read = read_checkpoint(path);
  EXPECT_EQ(read.header, header);
  ASSERT_EQ(read.parameters.size(), kValues);
  for (std::size_t i = 0; i < kValues; ++i) {
    ASSERT_EQ(read.parameters[i], static_cast<float>(i) / 7.0F) << i;
    ASSERT_EQ(read.velocity[i], -static_cast<float>(i)) << i;
  }
  ASSERT_EQ(read.versions.size(), static_cast<std::size_t>(world.size()));
  for (int k = 0; k < world.size(); ++k) {
    EXPECT_EQ(read.versions[static_cast<std::size_t>(k)], 100U + static_cast<std::uint64_t>(k));
    EXPECT_EQ(read.updates[static_cast<std::size_t>(k)], 200U + static_cast<std::uint64_t>(k));
  }
  EXPECT_EQ(read.positions, positions);
}

TEST(CheckpointFile, AnotherFormatVersionIsRefused) {
  const auto world = mpi::Communicator::world();
  if (world.rank() != 0) return;
  const std::string path = scratch_dir() + "/format_2.h5";
  const std::vector<float> values(kValues, 1.0F);
  const std::vector<WorkerPosition> positions(3);
  CheckpointHeader header = round_trip_header(1);
  ASSERT_TRUE(write_checkpoint(MPI_COMM_SELF, path, header, {0, values, {}, 0, 0, positions}, true));
  {
    const data::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_TRUE(file.valid());
    const std::int32_t format = kCheckpointFormat + 1;
    data::write_ints_attribute(file.get(), "psbench_checkpoint_format", std::span(&format, 1), true);
  }
  try {
    read_checkpoint(path);
    ADD_FAILURE() << "a checkpoint of format version 2 was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "--resume '" + path +
                                             "': checkpoint format version 2, but this psbench "
                                             "reads version 1 only");
  }
}

TEST(Checkpoints, SyncRunResumedMidEpochEndsBitIdentical) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kSync, "sync_checkpointed");
  options.epochs = 2;
  options.checkpoint_path = scratch_dir() + "/sync.h5";
  options.checkpoint_every = CheckpointEvery{50};
  const TrainOutcome whole = run_training(world, options);

  TrainOptions resumed = small_run(Mode::kSync, "sync_resumed");
  resumed.epochs = 2;
  resumed.resume_path = options.checkpoint_path;
  const TrainOutcome outcome = run_training(world, resumed);
  if (world.rank() != 0) return;
  EXPECT_EQ(outcome.final_parameters, whole.final_parameters);
  const Checkpoint checkpoint = read_checkpoint(options.checkpoint_path);
  EXPECT_EQ(checkpoint.header.epoch, 1U);  // 2 epochs have more than 50 steps: the last one is in epoch 1
  EXPECT_NE(checkpoint.positions[0].step, 0U);
  const results::ResultsFile file = results::read_results_file(resumed.out_path);
  ASSERT_TRUE(file.resumed_from.has_value());
  EXPECT_EQ(file.resumed_from->file, options.checkpoint_path);
  EXPECT_EQ(file.resumed_from->step, checkpoint.header.step);
  EXPECT_EQ(file.resumed_from->step % 50, 0U);
  EXPECT_EQ(file.resumed_from->worker_steps.size(), static_cast<std::size_t>(world.size()));
  EXPECT_EQ(file.config.resume, options.checkpoint_path);
  EXPECT_EQ(file.train.visits.exact_epochs, 1U);  // the resumed epoch counts the checkpoint's batches as visited
  const results::ResultsFile first = results::read_results_file(options.out_path);
  EXPECT_FALSE(first.resumed_from.has_value());
  EXPECT_EQ(first.config.checkpoint_every, "50");
}

TEST(Checkpoints, AsyncRunResumesOnAnotherServerCount) {
  const auto world = mpi::Communicator::world();
  if (world.size() < 4) GTEST_SKIP() << "needs 4 ranks: 1 + 2 writes the checkpoint, 2 + 2 resumes it";
  const std::string path = scratch_dir() + "/async.h5";
  TrainOptions options = small_run(Mode::kAsync, "async_checkpointed");
  options.epochs = 2;
  options.checkpoint_path = path;
  const mpi::Communicator three = first_ranks(world, 3);
  if (world.rank() < 3) run_training(three, options);  // 1 server + 2 workers
  world.barrier();

  TrainOptions resumed = small_run(Mode::kAsync, "async_resumed");
  resumed.servers = 2;
  resumed.resume_path = path;
  run_training(world, resumed);  // 2 servers + 2 workers, the last of kEpochs epochs
  if (world.rank() != 0) return;
  const results::ResultsFile file = results::read_results_file(resumed.out_path);
  ASSERT_TRUE(file.resumed_from.has_value());
  EXPECT_EQ(file.resumed_from->servers, 1);
  EXPECT_EQ(file.resumed_from->epoch, 2U);
  EXPECT_EQ(file.resumed_from->worker_epochs, (std::vector<std::uint32_t>{2, 2}));
  ASSERT_EQ(file.epochs.size(), 1U);
  EXPECT_EQ(file.epochs[0].epoch, 2U);
  for (const results::RankEntry& entry : file.per_rank) {
    if (entry.server) {
      EXPECT_EQ(entry.server->updates, file.train.steps);  // every step reached both shards
    }
  }
  EXPECT_GE(file.train.test_accuracy, kAccuracyBar);
}

TEST(Checkpoints, AnotherRunsCheckpointIsRefusedOnEveryRank) {
  const auto world = mpi::Communicator::world();
  TrainOptions options = small_run(Mode::kSync, "refusal_source");
  options.epochs = 1;
  options.checkpoint_path = scratch_dir() + "/refusal.h5";
  run_training(world, options);
  const auto refused = [&](TrainOptions attempt, const std::string& fragment) {
    attempt.resume_path = options.checkpoint_path;
    try {
      run_training(world, attempt);
      ADD_FAILURE() << "resumed despite: " << fragment;
    } catch (const mpi::CollectiveUserError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  TrainOptions other_model = small_run(Mode::kSync, "refused_model");
  other_model.model_spec = "mlp:16";
  refused(other_model, "the checkpoint is of --model mlp:32, not mlp:16");
  TrainOptions finished = small_run(Mode::kSync, "refused_finished");
  finished.epochs = 1;
  refused(finished, "raise --epochs to train on");
  TrainOptions other_mode = small_run(Mode::kSync, "refused_mode");
  other_mode.seed = 12;
  refused(other_mode, "--seed 11, not 12");
}

}  // namespace
}  // namespace psbench::train::testing
