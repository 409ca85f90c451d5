// Checkpoints without MPI: when one is due, which checkpoints a run refuses to resume from, and what the
// reader says of files that are no checkpoint. The file's parallel round trip is tests/mpi/train.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "train/checkpoint/checkpoint_file.hpp"
#include "train/checkpoint/checkpoint_schedule.hpp"
#include "train/checkpoint/resume.hpp"

namespace psbench::train {
namespace {

std::string error_of(const auto& call) {
  try {
    call();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(CheckpointEvery, ParsesEpochAndSteps) {
  EXPECT_EQ(parse_checkpoint_every("epoch"), CheckpointEvery{});
  EXPECT_EQ(parse_checkpoint_every("40").steps, 40U);
  EXPECT_EQ(checkpoint_every_text(parse_checkpoint_every("40")), "40");
  EXPECT_EQ(checkpoint_every_text(CheckpointEvery{}), "epoch");
  for (const char* bad : {"0", "-3", "4x", "", "epochs", "99999999999999999999999"}) {
    EXPECT_NE(error_of([&] { parse_checkpoint_every(bad); }).find("--checkpoint-every"), std::string::npos) << bad;
  }
}

TEST(CheckpointSchedule, EveryNStepsCountsAllWorkersTogether) {
  CheckpointSchedule schedule({3}, std::vector<WorkerPosition>(2), 0);
  EXPECT_FALSE(schedule.record(0, 0, false));
  EXPECT_FALSE(schedule.record(1, 0, false));
  EXPECT_TRUE(schedule.record(0, 0, false));  // the third step of the two workers together
  EXPECT_EQ(schedule.steps(), 3U);
  EXPECT_EQ(schedule.positions()[0], (WorkerPosition{0, 2}));
  EXPECT_EQ(schedule.positions()[1], (WorkerPosition{0, 1}));
  EXPECT_FALSE(schedule.record(1, 0, true));  // worker 1 finishes epoch 0
  EXPECT_EQ(schedule.positions()[1], (WorkerPosition{1, 0}));
  EXPECT_EQ(schedule.finished_epochs(), 0U);  // worker 0 has not
  EXPECT_FALSE(schedule.record(1, 1, false));
  EXPECT_TRUE(schedule.record(0, 0, false));
  EXPECT_FALSE(schedule.record(0, 0, true));
  EXPECT_EQ(schedule.finished_epochs(), 1U);  // counted with step checkpoints too
}

TEST(CheckpointSchedule, EpochIsDueWhenTheSlowestWorkerFinishesIt) {
  CheckpointSchedule schedule({}, std::vector<WorkerPosition>(2), 0);
  EXPECT_FALSE(schedule.record(0, 0, true));  // worker 0 is done with epoch 0, worker 1 is not
  EXPECT_FALSE(schedule.record(0, 1, false));
  EXPECT_EQ(schedule.finished_epochs(), 0U);
  EXPECT_TRUE(schedule.record(1, 0, true));
  EXPECT_EQ(schedule.finished_epochs(), 1U);
  EXPECT_EQ(schedule.positions()[0], (WorkerPosition{1, 1}));
  EXPECT_FALSE(schedule.record(1, 1, true));
  EXPECT_TRUE(schedule.record(0, 1, true));
  EXPECT_EQ(schedule.finished_epochs(), 2U);
}

TEST(CheckpointSchedule, ResumedScheduleContinuesTheCounts) {
  CheckpointSchedule schedule({4}, {{1, 5}, {2, 0}}, 10);
  EXPECT_EQ(schedule.finished_epochs(), 1U);
  EXPECT_FALSE(schedule.record(0, 1, false));
  EXPECT_TRUE(schedule.record(1, 2, false));  // step 12
  EXPECT_EQ(schedule.positions()[0], (WorkerPosition{1, 6}));
}

TEST(CheckpointSchedule, SyncWorkersStepTogether) {
  CheckpointSchedule schedule({}, std::vector<WorkerPosition>(3), 0);
  EXPECT_FALSE(schedule.record_all(0, false));
  EXPECT_TRUE(schedule.record_all(0, true));
  for (const WorkerPosition& position : schedule.positions()) EXPECT_EQ(position, (WorkerPosition{1, 0}));
  EXPECT_EQ(schedule.steps(), 2U);
}

Checkpoint checkpoint_of(const CheckpointHeader& header) {
  Checkpoint checkpoint;
  checkpoint.header = header;
  checkpoint.positions = {{1, 3}, {2, 0}};
  return checkpoint;
}

CheckpointHeader header_of_this_run() {
  CheckpointHeader header;
  header.model = "mlp:32";
  header.input = {1, 28, 28};
  header.classes = 10;
  header.training_samples = 3001;
  header.parameters = 25450;
  header.seed = 1;
  header.batch = 25;
  header.mode = "async";
  header.workers = 2;
  header.servers = 1;
  return header;
}

TEST(CheckpointResume, RefusesAnotherRunsCheckpointNamingTheDifference) {
  const CheckpointHeader expected = header_of_this_run();
  const auto refusal = [&](auto change) {
    CheckpointHeader found = expected;
    change(found);
    return error_of([&] { check_resumable(checkpoint_of(found), expected, 3, "c.h5"); });
  };
  EXPECT_EQ(refusal([](CheckpointHeader&) {}), "(no error)");
  EXPECT_EQ(refusal([](CheckpointHeader& h) { h.servers = 3; }), "(no error)");  // re-sharded
  EXPECT_EQ(refusal([](CheckpointHeader& h) { h.model = "mlp:64"; }),
            "--resume 'c.h5': the checkpoint is of --model mlp:64, not mlp:32");
  EXPECT_EQ(refusal([](CheckpointHeader& h) { h.training_samples = 600; }),
            "--resume 'c.h5': the checkpoint was trained on data of 600 training samples of 1x28x28 in 10 classes, "
            "but --data has 3001 training samples of 1x28x28 in 10 classes");
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.input = {3, 32, 32}; }).find("3x32x32"), std::string::npos);
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.classes = 2; }).find("in 2 classes"), std::string::npos);
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.mode = "sync"; }).find("--mode sync, not async"), std::string::npos);
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.workers = 3; }).find("3 workers, but this job has 2"),
            std::string::npos);
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.batch = 64; }).find("--batch 64, not 25"), std::string::npos);
  EXPECT_NE(refusal([](CheckpointHeader& h) { h.seed = 7; }).find("--seed 7, not 1"), std::string::npos);
}

TEST(CheckpointResume, RefusesACheckpointWithNothingLeftToTrain) {
  const CheckpointHeader header = header_of_this_run();
  EXPECT_EQ(error_of([&] { check_resumable(checkpoint_of(header), header, 2, "c.h5"); }),
            "(no error)");  // worker 0 is still in epoch 1
  Checkpoint done = checkpoint_of(header);
  done.positions = {{2, 0}, {2, 0}};
  EXPECT_EQ(error_of([&] { check_resumable(done, header, 2, "c.h5"); }),
            "--resume 'c.h5': every worker had finished the 2 epochs of --epochs 2: raise --epochs to train on");
}

TEST(CheckpointResume, ReaderRefusesFilesThatAreNoCheckpoint) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "psbench_checkpoint_unit";
  std::filesystem::create_directories(folder);
  const std::string missing = (folder / "missing.h5").string();
  EXPECT_EQ(error_of([&] { read_checkpoint(missing); }), "--resume '" + missing + "': no such file");
  EXPECT_EQ(error_of([&] { read_checkpoint(folder.string()); }),
            "--resume '" + folder.string() + "': is a folder, not a checkpoint file");
  const std::string text = (folder / "text.h5").string();
  std::ofstream(text) << "not HDF5\n";
  EXPECT_EQ(error_of([&] { read_checkpoint(text); }), "--resume '" + text + "': not an HDF5 file");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace psbench::train
