// validate_runs measures what the report quotes, once, in C++: three repetitions of one configuration become
// one configuration whose measured figures (phases and quantities) are their medians, with their range; with no
// kinds it predicts nothing and needs no calibration.
#include "perf/validation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "results/file_io.hpp"
#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

// 2 workers and 2 servers, sequential reads ending at 0.3 s; `scale` stretches the timed figures.
results::ResultsFile repetition(const std::string& out, double scale) {
  results::ResultsFile run;
  run.config.mode = "async";
  run.config.io = "sequential";
  run.config.read = "whole";
  run.config.model = "mlp:64";
  run.model.parameters = 50890;  // mlp:64 on 1x28x28 inputs, 10 classes
  run.config.batch = 64;
  run.config.epochs = 1;
  run.config.out = out;
  run.env.cores = 8;
  run.env.workers = 2;
  run.env.servers = 2;
  run.train.total_samples = 100;
  run.load.resize(2);
  run.load[0].timing.read_s = 0.1 * scale;
  run.load[1].timing.read_s = 0.1 * scale;
  run.load[1].timing.wait_s = 0.2 * scale;
  run.phases[Phase::kInitIo] = 0.5 * scale;
  run.phases[Phase::kInitTotal] = 1.0;
  run.phases[Phase::kTotal] = 4.0 * scale;
  run.train.training_s = 3.0 * scale;
  run.train.evaluation_s = 0.2 * scale;
  run.server.utilization = 0.25 * scale;
  run.server.updates_per_s = 100.0 * scale;
  run.server.staleness.mean = 1.5 * scale;
  return run;
}

class ValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("psbench_validation_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    for (const double scale : {1.0, 0.5, 3.0}) {
      const std::string path = (folder_ / ("r" + std::to_string(files_.size()) + ".json")).string();
      results::write_results_file(path, repetition(path, scale));
      files_.push_back(path);
    }
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::filesystem::path folder_;
  std::vector<std::string> files_;
};

TEST_F(ValidationTest, RepetitionsBecomeOneConfigurationOfTheirMedians) {
  const Validation v = validate_runs(Calibration{}, files_, ValidateOptions{});
  ASSERT_EQ(v.runs.size(), 3U);
  ASSERT_EQ(v.configurations.size(), 1U);
  const RunComparison& c = v.configurations[0];
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_EQ(c.files, files_);
  EXPECT_DOUBLE_EQ(c.measured.at("init_io"), 0.3);  // the last reader's wait + read
  EXPECT_DOUBLE_EQ(c.lowest.at("init_io"), 0.15);
  EXPECT_DOUBLE_EQ(c.highest.at("init_io"), 0.9);
  EXPECT_DOUBLE_EQ(c.measured.at("compute"), 3.0);
  EXPECT_DOUBLE_EQ(c.measured.at("init_io_phase"), 0.5);
  EXPECT_DOUBLE_EQ(c.measured.at("setup_share"), 0.25);  // 1 / 4, the median of 1/4, 1/2 and 1/12
  EXPECT_DOUBLE_EQ(c.highest.at("setup_share"), 0.5);
  EXPECT_DOUBLE_EQ(c.measured.at("server_utilization"), 0.25);
  EXPECT_DOUBLE_EQ(c.measured.at("updates_per_s"), 100.0);
  EXPECT_DOUBLE_EQ(c.measured.at("pushes_per_s"), 50.0);  // each step updates both shards
  EXPECT_DOUBLE_EQ(c.lowest.at("pushes_per_s"), 25.0);
  EXPECT_DOUBLE_EQ(c.measured.at("staleness_mean"), 1.5);
  EXPECT_TRUE(c.predicted.empty());
}

TEST_F(ValidationTest, JsonHoldsEveryMeasuredKeyAndNoPredictionWithoutKinds) {
  const Validation v = validate_runs(Calibration{}, files_, ValidateOptions{});
  const auto document = nlohmann::json::parse(format_validation_json(v, {}));
  EXPECT_EQ(document.at("format"), kValidationJsonFormat);
  EXPECT_TRUE(document.at("kind_order").empty());
  const auto& configuration = document.at("configurations").at(0);
  for (const char* key : kValidatedPhases) EXPECT_TRUE(configuration.at("measured").contains(key)) << key;
  for (const char* key : kMeasuredQuantities) {
    EXPECT_TRUE(configuration.at("measured").contains(key)) << key;
    EXPECT_TRUE(configuration.at("lowest").contains(key)) << key;
    EXPECT_TRUE(configuration.at("highest").contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(configuration.at("measured").at("staleness_mean").get<double>(), 1.5);
  EXPECT_TRUE(configuration.at("predicted").empty());
  EXPECT_EQ(document.at("runs").size(), 3U);
  EXPECT_EQ(document.at("runs").at(1).at("files").at(0), files_[1]);
}

// A sync, a bmuf and an async run of one data set, model and W: three configurations, each predicted as its
// learner runs. 100 samples over W = 2 is one step of 64 each; t_fb 10 ms, the update of 4P 2 ms; the allreduce
// 0.1 ms + 1 ns per ring byte, 4P each way with W = 2.
TEST_F(ValidationTest, EveryLearnerIsItsOwnConfigurationPredictedAsItRuns) {
  const auto learner_run = [&](const std::string& mode, std::uint64_t block_samples) {
    const std::string path = (folder_ / (mode + ".json")).string();
    results::ResultsFile run = repetition(path, 1.0);
    run.config.mode = mode;
    run.config.block_samples = block_samples;
    run.env.servers = 0;
    results::write_results_file(path, run);
    return path;
  };
  const std::vector<std::string> runs = {learner_run("sync", 0), learner_run("bmuf", 64), files_[0]};
  Calibration calibration = test_support::two_core_calibration();
  calibration.allreduce = LinearFit{1e-4, 1e-9, "push_pull.json", 0.0, 2, {}};
  ValidateOptions options;
  options.kinds = {Kind::kMva};
  const Validation v = validate_runs(calibration, runs, options);
  ASSERT_EQ(v.configurations.size(), 3U);
  EXPECT_NE(v.configurations[0].configuration.find(" sync "), std::string::npos);
  EXPECT_NE(v.configurations[1].configuration.find(" bmuf "), std::string::npos);
  EXPECT_NE(v.configurations[1].configuration.find(" block64 "), std::string::npos);
  const double allreduce = 1e-4 + 4.0 * 50890.0 * 1e-9;
  EXPECT_NEAR(v.configurations[0].predicted.at(Kind::kMva).at("compute"), 0.012 + allreduce, 1e-12);
  // One block of one step: its allreduce and BMUF's block update, two updates of 4P.
  EXPECT_NEAR(v.configurations[1].predicted.at(Kind::kMva).at("compute"), 0.012 + allreduce + 0.004, 1e-12);
  EXPECT_EQ(v.configurations[0].servers, 0);
  options.kinds = {Kind::kSim};  // sim simulates the servers' protocol only: one error naming the run
  EXPECT_THROW(validate_runs(calibration, runs, options), UserError);
}

// Errors of 2, 4, 10, 30 and 54%: their mean 20, median 10, 90th percentile at position 3.6 of 4, 44.4.
// Runs at 1x, 0.5x and 3x: each against the median of the other two is off by 3 / 5.25, 1.5 / 6 and 9 / 2.25
// (42.86%, 75% and 300%) in every phase, as every timed figure scales alike.
TEST_F(ValidationTest, RepeatsSpreadIsEachRunAgainstTheMedianOfItsOthers) {
  const Validation v = validate_runs(Calibration{}, files_, ValidateOptions{});
  EXPECT_EQ(v.repeated_runs, 3);
  const auto document = nlohmann::json::parse(format_validation_json(v, {}));
  const auto& repeats = document.at("repeats");
  EXPECT_EQ(repeats.at("count").get<int>(), 3);
  for (const char* phase : kValidatedPhases) {
    const ErrorSpread& e = v.repeat_errors.at(phase);
    EXPECT_NEAR(e.mean, (100.0 * 2.25 / 5.25 + 75.0 + 300.0) / 3.0, 1e-9) << phase;
    EXPECT_NEAR(e.median, 75.0, 1e-9) << phase;
    EXPECT_NEAR(e.p90, 75.0 + 0.8 * 225.0, 1e-9) << phase;
    EXPECT_NEAR(e.max, 300.0, 1e-9) << phase;
    EXPECT_DOUBLE_EQ(repeats.at("mape_percent").at(phase).get<double>(), e.mean) << phase;
    EXPECT_DOUBLE_EQ(repeats.at("max_ape_percent").at(phase).get<double>(), e.max) << phase;
  }
  EXPECT_NE(format_validation(v, {}).find("repeats  total        139.3    75.0   255.0   300.0"), std::string::npos)
      << format_validation(v, {});
}

// A run without a repetition has no spread of its own: the JSON says null and the text leaves the table out.
TEST_F(ValidationTest, NoRepeatsNoSpread) {
  const Validation v = validate_runs(Calibration{}, {files_[0]}, ValidateOptions{});
  EXPECT_EQ(v.repeated_runs, 0);
  EXPECT_TRUE(v.repeat_errors.empty());
  EXPECT_TRUE(nlohmann::json::parse(format_validation_json(v, {})).at("repeats").is_null());
  EXPECT_EQ(format_validation(v, {}).find("repeats"), std::string::npos);
}

TEST(ErrorSpread, MeanMedianP90AndMaxByHand) {
  const ErrorSpread e = error_spread({30.0, 2.0, 54.0, 10.0, 4.0});
  EXPECT_DOUBLE_EQ(e.mean, 20.0);
  EXPECT_DOUBLE_EQ(e.median, 10.0);
  EXPECT_DOUBLE_EQ(e.p90, 30.0 + 0.6 * 24.0);
  EXPECT_DOUBLE_EQ(e.max, 54.0);
}

TEST(ErrorSpread, OneErrorIsEveryFigure) {
  const ErrorSpread e = error_spread({7.5});
  EXPECT_DOUBLE_EQ(e.mean, 7.5);
  EXPECT_DOUBLE_EQ(e.median, 7.5);
  EXPECT_DOUBLE_EQ(e.p90, 7.5);
  EXPECT_DOUBLE_EQ(e.max, 7.5);
}

// Over the three runs one by one, the JSON's spread is that of the runs' own signed errors.
TEST_F(ValidationTest, JsonSpreadIsThatOfThePerRunErrors) {
  ValidateOptions options;
  options.kinds = {Kind::kRevised};
  options.input = {1, 28, 28, 10};
  const Validation v = validate_runs(test_support::two_core_calibration(), files_, options);
  const auto document = nlohmann::json::parse(format_validation_json(v, options.kinds));
  for (const char* phase : kValidatedPhases) {
    std::vector<double> errors;
    for (const auto& run : document.at("runs"))
      errors.push_back(std::abs(run.at("error_percent").at("revised").at(phase).get<double>()));
    std::sort(errors.begin(), errors.end());
    const auto& over = document.at("over_runs");
    EXPECT_NEAR(over.at("mape_percent").at("revised").at(phase).get<double>(),
                (errors[0] + errors[1] + errors[2]) / 3.0, 1e-9)
        << phase;
    EXPECT_NEAR(over.at("median_ape_percent").at("revised").at(phase).get<double>(), errors[1], 1e-9) << phase;
    EXPECT_NEAR(over.at("p90_ape_percent").at("revised").at(phase).get<double>(),
                errors[1] + 0.8 * (errors[2] - errors[1]), 1e-9)
        << phase;
    EXPECT_NEAR(over.at("max_ape_percent").at("revised").at(phase).get<double>(), errors[2], 1e-9) << phase;
    EXPECT_DOUBLE_EQ(v.run_errors.at(Kind::kRevised).at(phase).max, errors[2]) << phase;
  }
}

}  // namespace
}  // namespace psbench::perf
