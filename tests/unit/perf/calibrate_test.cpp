// calibrate recovers known parameters from synthetic benchmark files written through the results schema,
// and gives clear errors for a missing file, a wrong format version and an empty list.
#include "perf/calibrate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "results/bench_file.hpp"
#include "results/file_io.hpp"

namespace psbench::perf {
namespace {

namespace fs = std::filesystem;

// Known truth: t_fb(b) = 0.5 ms + 20 us x b; push/pull 30 us + 1 ns/byte (messages), 10 us + 0.4 ns/byte
// (window); update 4 us + 0.25 ns/byte; serial read 10 ms + bytes / 500 MB/s; collective read 1 GB/s;
// the saturation benchmark's D twice the update fit, cv 0.1; 2 cores.
constexpr double kStepIntercept = 0.5e-3, kStepSlope = 20e-6;
constexpr double kMsgIntercept = 30e-6, kMsgSlope = 1e-9, kWinIntercept = 10e-6, kWinSlope = 0.4e-9;
constexpr double kRmaIntercept = 50e-6, kRmaSlope = 1.5e-9;
constexpr double kUpdateIntercept = 4e-6, kUpdateSlope = 0.25e-9;
constexpr double kReadIntercept = 10e-3, kReadBps = 500e6, kParallelBps = 1e9;
constexpr std::uint64_t kParameters = 535818;

results::BenchmarkRun run(const std::string& name, double seconds, const std::string& unit) {
  results::BenchmarkRun r;
  r.name = r.run_name = name;
  r.run_type = "iteration";
  r.iterations = 100;
  const double scale = unit == "ms" ? 1e3 : unit == "us" ? 1e6 : 1.0;
  r.real_time = r.cpu_time = seconds * scale;
  r.time_unit = unit;
  return r;
}

class CalibrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("psbench_calibrate_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const results::Json& json) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << json.dump(2);
    return path;
  }

  results::GoogleBenchmarkFile file_with(std::vector<results::BenchmarkRun> runs) const {
    results::GoogleBenchmarkFile file;
    file.context.host_name = "testhost";
    file.context.num_cpus = 2;
    file.context.psbench = {"testhost", 2, "Test CPU", "avx2", {{"psbench", "0.1.0"}}, "abc"};
    file.benchmarks = std::move(runs);
    return file;
  }

  std::vector<std::string> all_files() {
    std::vector<results::BenchmarkRun> nn;
    for (const int b : {32, 128, 512}) {
      nn.push_back(run("BM_TrainStepMlp/" + std::to_string(b) + "/real_time", kStepIntercept + kStepSlope * b, "ms"));
      nn.back().counters["FLOP/s"] = 4e10;
    }
    std::vector<results::BenchmarkRun> push_pull;
    for (const double bytes : {2143272.0, 13098536.0, 400000.0}) {
      const auto tail = std::to_string(static_cast<long>(bytes));
      push_pull.push_back(run("BM_PushPull/path:0/" + tail + "/manual_time", kMsgIntercept + kMsgSlope * bytes, "us"));
      push_pull.push_back(run("BM_PushPull/path:1/" + tail, kWinIntercept + kWinSlope * bytes, "us"));
      push_pull.push_back(run("BM_PushPull/path:2/" + tail, kRmaIntercept + kRmaSlope * bytes, "us"));
      push_pull.push_back(run("BM_LocalUpdate/" + tail, kUpdateIntercept + kUpdateSlope * bytes, "us"));
    }
    std::vector<results::BenchmarkRun> io;
    for (const double bytes : {1e7, 1e8, 4e8}) {
      const auto tail = std::to_string(static_cast<long>(bytes));
      io.push_back(run("BM_Hdf5SerialRead/" + tail, kReadIntercept + bytes / kReadBps, "ms"));
      io.push_back(run("BM_Hdf5CollectiveRead/" + tail, bytes / kParallelBps, "ms"));
    }
    results::SaturationFile saturation;
    saturation.context.cores = 2;
    results::SaturationRun curve;
    curve.servers = 1;
    curve.parameters = kParameters;
    curve.service_us = 2e6 * (kUpdateIntercept + kUpdateSlope * 4.0 * kParameters);
    curve.service_cv = 0.1;
    curve.points = {{1, 400.0, 0.1, 260.0, 0.1}};
    saturation.runs = {curve};
    return {write("nn.json", file_with(nn)), write("push_pull.json", file_with(push_pull)),
            write("data_io.json", file_with(io)), write("server_saturation.json", saturation)};
  }

  fs::path dir_;
};

TEST_F(CalibrateTest, RecoversKnownParameters) {
  const Calibration c = calibrate(all_files(), {});
  EXPECT_EQ(c.machine.cores, 2);
  EXPECT_EQ(c.machine.onednn_isa, "avx2");
  ASSERT_EQ(c.compute.size(), 1U);
  EXPECT_EQ(c.compute[0].model, "mlp:512,256");
  EXPECT_NEAR(c.compute[0].step.intercept, kStepIntercept, 1e-9);
  EXPECT_NEAR(c.compute[0].step.slope, kStepSlope, 1e-12);
  EXPECT_LT(c.compute[0].step.residual, 1e-9);
  EXPECT_NE(c.compute[0].step.source.find("nn.json"), std::string::npos);
  EXPECT_NEAR(c.flops_per_s.value, 4e10, 1.0);
  EXPECT_NEAR(c.exchange_messages.intercept, kMsgIntercept, 1e-10);
  EXPECT_NEAR(c.exchange_messages.slope, kMsgSlope, 1e-15);
  EXPECT_NEAR(c.exchange_shared_window.slope, kWinSlope, 1e-15);
  // RMA's push/pull (path:2) is a fit of its own: it leaves the messages fit above alone.
  EXPECT_NEAR(c.exchange_rma.intercept, kRmaIntercept, 1e-10);
  EXPECT_NEAR(c.exchange_rma.slope, kRmaSlope, 1e-15);
  EXPECT_NEAR(c.update.intercept, kUpdateIntercept, 1e-10);
  EXPECT_NEAR(c.update.slope, kUpdateSlope, 1e-15);
  EXPECT_NEAR(c.disk_sequential_Bps.value, kReadBps, 1e-3 * kReadBps);
  EXPECT_NEAR(c.disk_sequential.intercept, kReadIntercept, 1e-7);
  EXPECT_NEAR(c.disk_parallel_Bps.value, kParallelBps, 1e-3 * kParallelBps);
  EXPECT_NEAR(c.service_scale.value, 2.0, 1e-9);
  EXPECT_NEAR(c.service_cv.value, 0.1, 1e-12);
  EXPECT_NE(c.service_scale.source.find("server_saturation.json"), std::string::npos);
}

TEST_F(CalibrateTest, RoundTripsThroughCalibJson) {
  const Calibration c = calibrate(all_files(), {});
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(c, path);
  const Calibration back = read_calibration(path);
  EXPECT_DOUBLE_EQ(back.update.slope, c.update.slope);
  EXPECT_EQ(back.compute[0].step.source, c.compute[0].step.source);
  EXPECT_DOUBLE_EQ(back.disk_sequential.residual, c.disk_sequential.residual);
}

// The learners' kernels: the allreduce at 20 us + 1 ns per byte each rank sends in a ring, measured with 2 ranks
// (a ring sends the vector's bytes) and 4 (1.5 times them); 1-bit quantization at 0.3 ns and dequantization at
// 0.2 ns per fp32 byte. Calibrations without them keep them uncalibrated, and calib.json carries them.
TEST_F(CalibrateTest, RecoversTheLearnersKernels) {
  std::vector<results::BenchmarkRun> allreduce;
  std::vector<results::BenchmarkRun> kernels;
  for (const double bytes : {400000.0, 2143272.0}) {
    const auto tail = std::to_string(static_cast<long>(bytes));
    for (const double ranks : {2.0, 4.0}) {
      const double ring = 2.0 * (ranks - 1.0) / ranks * bytes;
      allreduce.push_back(run("BM_Allreduce/" + tail + "/manual_time", 20e-6 + 1e-9 * ring, "us"));
      allreduce.back().counters["ranks"] = ranks;
    }
    kernels.push_back(run("BM_OneBitQuantize/" + tail + "/real_time", 0.3e-9 * bytes, "us"));
    kernels.push_back(run("BM_OneBitDequantize/" + tail + "/real_time", 0.2e-9 * bytes, "us"));
  }
  const Calibration without = calibrate(all_files(), {});
  EXPECT_EQ(without.allreduce.points, 0);
  EXPECT_EQ(without.quantize.points, 0);
  std::vector<std::string> files = all_files();
  files.push_back(write("collectives.json", file_with(allreduce)));
  files.push_back(write("server_update.json", file_with(kernels)));
  const Calibration c = calibrate(files, {});
  EXPECT_EQ(c.allreduce.points, 4);
  EXPECT_NEAR(c.allreduce.intercept, 20e-6, 1e-12);
  EXPECT_NEAR(c.allreduce.slope, 1e-9, 1e-16);
  EXPECT_NEAR(c.quantize.slope, 0.3e-9, 1e-16);
  EXPECT_NEAR(c.dequantize.at(1e6), 0.2e-3, 1e-12);
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(c, path);
  const Calibration back = read_calibration(path);
  EXPECT_DOUBLE_EQ(back.allreduce.at(3e6), c.allreduce.at(3e6));
  EXPECT_DOUBLE_EQ(back.quantize.slope, c.quantize.slope);
  EXPECT_DOUBLE_EQ(back.dequantize.slope, c.dequantize.slope);
}

void expect_user_error(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST_F(CalibrateTest, ClearErrors) {
  const std::string missing = (dir_ / "absent.json").string();
  expect_user_error([&] { calibrate({missing}, {}); }, "absent.json");
  expect_user_error([&] { calibrate({}, {}); }, "empty list");
  results::Json newer = results::SaturationFile{};
  newer["format"] = 99;
  const std::string wrong = write("newer.json", newer);
  expect_user_error([&] { calibrate({wrong}, {}); }, "format");
  const std::string calib = write("calib.json", {{"format", 7}});
  expect_user_error([&] { read_calibration(calib); }, "has format 7");
  expect_user_error([&] { read_calibration(missing); }, "absent.json");
  auto files = all_files();
  files.erase(files.begin() + 2);  // no data_io.json: no disk bandwidth
  expect_user_error([&] { calibrate(files, {}); }, "disk bandwidth");
}

// nn_bench's third model, the synthetic sweep's mlp:128 on 3x32x32 (BM_TrainStepMlp128: 1 ms + 20 us per sample;
// BM_EvaluateMlp128: 1 ms + 5 us per sample): a step and an evaluation line of its own beside mlp:512,256's.
TEST_F(CalibrateTest, TheSyntheticSweepsModelGetsItsOwnStepAndEvaluation) {
  std::vector<std::string> files = all_files();
  std::vector<results::BenchmarkRun> runs;
  for (const int b : {32, 128, 512})
    runs.push_back(run("BM_TrainStepMlp128/" + std::to_string(b) + "/real_time", 1e-3 + 20e-6 * b, "ms"));
  for (const int samples : {64, 128})
    runs.push_back(run("BM_EvaluateMlp128/" + std::to_string(samples) + "/real_time", 1e-3 + 5e-6 * samples, "ms"));
  files.push_back(write("nn128.json", file_with(runs)));
  const Calibration c = calibrate(files, {});
  ASSERT_EQ(c.compute.size(), 2U);
  const auto mlp128 =
      std::find_if(c.compute.begin(), c.compute.end(), [](const auto& f) { return f.model == "mlp:128"; });
  ASSERT_NE(mlp128, c.compute.end());
  EXPECT_NEAR(mlp128->step.slope, 20e-6, 1e-12);
  EXPECT_NEAR(compute_seconds(c, "mlp:128", 1e9, 64), 1e-3 + 20e-6 * 64, 1e-9) << "the fit, not the FLOP rate";
  ASSERT_EQ(c.evaluate.size(), 1U);
  EXPECT_EQ(c.evaluate[0].model, "mlp:128");
  EXPECT_NEAR(c.evaluate[0].step.at(128), 1e-3 + 5e-6 * 128, 1e-9);
}

// A chain's later readers into fresh pages: 60 ms + 2 ns/byte, at two sizes, three launches each, one launch
// of each size twice as slow (the machine's memory state moves between launches: the medians ignore it).
constexpr double kLaterIntercept = 60e-3, kLaterSlope = 2e-9;

// The final evaluation's calls (BM_EvaluateMlp: 2 ms + 10 us per sample, at 64 and 128 samples) and ranks sharing
// cores (BM_TrainStepShared, a launch per k: stretch 1.0 at 0.5 ranks per core, 1.1 and 1.3 at 1.0 in two
// repetitions, 1.5 at 1.5): the evaluation's line, the stretch's medians per ratio (1.0, 1.2, 1.5) and its spread,
// each named by its benchmark; calib.json carries both, and one made before them loads without them.
TEST_F(CalibrateTest, FitsTheEvaluationAndTheCoreSharing) {
  std::vector<std::string> files = all_files();
  std::vector<results::BenchmarkRun> evaluate;
  for (const int samples : {64, 128})
    evaluate.push_back(run("BM_EvaluateMlp/" + std::to_string(samples) + "/real_time", 2e-3 + 10e-6 * samples, "ms"));
  files.push_back(write("evaluate.json", file_with(evaluate)));
  const std::pair<double, double> shared[] = {{0.5, 1.0}, {1.0, 1.1}, {1.0, 1.3}, {1.5, 1.5}};
  for (std::size_t i = 0; i < std::size(shared); ++i) {
    results::BenchmarkRun r = run("BM_TrainStepShared/64/manual_time", 1e-3, "ms");
    r.counters["ranks_per_core"] = shared[i].first;
    r.counters["stretch"] = shared[i].second;
    files.push_back(write("shared_steps-" + std::to_string(i) + ".json", file_with({r})));
  }
  const Calibration c = calibrate(files, {});
  ASSERT_EQ(c.evaluate.size(), 1U);
  EXPECT_EQ(c.evaluate[0].model, "mlp:512,256");
  EXPECT_NEAR(c.evaluate[0].step.intercept, 2e-3, 1e-12);
  EXPECT_NEAR(c.evaluate[0].step.slope, 10e-6, 1e-15);
  EXPECT_NE(c.evaluate[0].step.measured_by.find("BM_Evaluate"), std::string::npos);
  EXPECT_EQ(c.core_sharing.points, 4);
  ASSERT_EQ(c.core_sharing.table.size(), 3U);
  EXPECT_NEAR(c.core_sharing.table[1].y, 1.2, 1e-12);
  EXPECT_NEAR(core_sharing_stretch(c, 1.25), 1.35, 1e-12);  // halfway from 1.2 to 1.5
  EXPECT_NEAR(core_sharing_stretch(c, 4.0), 1.5, 1e-12);    // held beyond the largest ratio measured
  EXPECT_NEAR(core_sharing_stretch(c, 0.25), 1.0, 1e-12);   // and below the smallest
  // Ratios to the medians: 1, 1.1/1.2, 1.3/1.2, 1: the 10th percentile 0.3 of the way from 1.1/1.2 to 1.
  EXPECT_NEAR(c.core_sharing.spread.low, 1.1 / 1.2 + 0.3 * (1.0 - 1.1 / 1.2), 1e-12);
  EXPECT_NE(c.core_sharing.measured_by.find("BM_TrainStepShared"), std::string::npos);
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(c, path);
  const Calibration back = read_calibration(path);
  EXPECT_DOUBLE_EQ(back.core_sharing.at(1.0), 1.2);
  EXPECT_DOUBLE_EQ(back.evaluate[0].step.at(128), c.evaluate[0].step.at(128));
  EXPECT_DOUBLE_EQ(back.core_sharing.spread.high, c.core_sharing.spread.high);
  EXPECT_EQ(back.core_sharing.measured_by, c.core_sharing.measured_by);
  results::Json old = results::Json::parse(std::ifstream(path));
  old.erase("evaluate");
  old.erase("core_sharing_stretch_vs_ranks_per_core");
  const Calibration before = read_calibration(write("old_calib.json", old));
  EXPECT_TRUE(before.evaluate.empty());
  EXPECT_DOUBLE_EQ(core_sharing_stretch(before, 2.0), 1.0);
}

// bench/run_all.sh writes trainer_limit.json beside the files calibrate fits: a whole folder calibrates as without it.
TEST_F(CalibrateTest, PassesOverTheTrainerLimitFile) {
  std::vector<std::string> files = all_files();
  const Calibration without = calibrate(files, {});
  files.push_back(
      write("trainer_limit.json", {{"format", 1}, {"benchmark", "trainer_limit"}, {"runs", results::Json::array()}}));
  const Calibration with = calibrate(files, {});
  EXPECT_DOUBLE_EQ(with.update.slope, without.update.slope);
  EXPECT_DOUBLE_EQ(with.compute[0].step.slope, without.compute[0].step.slope);
  EXPECT_DOUBLE_EQ(with.disk_sequential_Bps.value, without.disk_sequential_Bps.value);
  // Another document with a "benchmark" key is still read, and refused with its key named.
  files.back() = write("other.json", {{"format", 1}, {"benchmark", "other"}});
  expect_user_error([&] { calibrate(files, {}); }, "benchmark");
}

TEST_F(CalibrateTest, FitsTheFreshPageReadsAndKeepsThemOptional) {
  std::vector<std::string> files = all_files();
  const Calibration without = calibrate(files, {});
  EXPECT_EQ(without.disk_fresh_later.points, 0);
  for (const double bytes : {4.7e7, 3.07e8}) {
    const auto tail = std::to_string(static_cast<long>(bytes));
    for (const double slowdown : {1.0, 2.0, 1.0}) {
      const double later = slowdown * (kLaterIntercept + kLaterSlope * bytes);
      files.push_back(write("data_io_fresh-" + tail + "-" + std::to_string(files.size()) + ".json",
                            file_with({run("BM_Hdf5SerialReadFreshBuffers/" + tail, 1.0, "ms"),
                                       run("BM_Hdf5FreshFirstRead/" + tail, 0.5 * later, "ms"),
                                       run("BM_Hdf5FreshLaterRead/" + tail, later, "ms")})));
    }
  }
  const Calibration c = calibrate(files, {});
  for (const double bytes : {4.7e7, 1.77e8, 3.07e8})  // the medians, and between them the line through them
    EXPECT_NEAR(c.disk_fresh_later.at(bytes), kLaterIntercept + kLaterSlope * bytes, 1e-12) << bytes;
  EXPECT_EQ(c.disk_fresh_later.points, 6);
  EXPECT_NE(c.disk_fresh_later.source.find("data_io_fresh-47000000"), std::string::npos);
  // Neither the chain nor its first reader is the kept-buffer read: B_seq stays the data_io.json fit.
  EXPECT_NEAR(c.disk_sequential_Bps.value, kReadBps, 1e-3 * kReadBps);
  EXPECT_NEAR(c.disk_sequential.intercept, kReadIntercept, 1e-7);
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(c, path);
  EXPECT_DOUBLE_EQ(read_calibration(path).disk_fresh_later.at(3.07e8), c.disk_fresh_later.at(3.07e8));
  // A calib.json written before the key existed still loads, without it.
  write_calibration(without, path);
  results::Json old = results::Json::parse(std::ifstream(path));
  old.erase("disk_fresh_later_s_vs_bytes");
  const Calibration read_back = read_calibration(write("old_calib.json", old));
  EXPECT_EQ(read_back.disk_fresh_later.points, 0);
  EXPECT_DOUBLE_EQ(read_back.disk_sequential.slope, without.disk_sequential.slope);
}

// Known truth: a worker alone on a core sets up in 80 ms; 2 and 3 workers on the file's 2 cores stretch it by
// max(1, W / cores), as the scenario does. calibrate recovers the 80 ms, and a calib.json made without the benchmark
// loads with no set-up.
TEST_F(CalibrateTest, FitsTheSetUpFromTheBenchmark) {
  constexpr double kSetUp = 0.08;
  std::vector<std::string> files = all_files();
  const Calibration without = calibrate(files, {});
  EXPECT_EQ(without.setup_s.points, 0);
  for (const int workers : {1, 2, 3}) {
    const double stretch = std::max(1.0, workers / 2.0);
    files.push_back(
        write("train_setup-w" + std::to_string(workers) + ".json",
              file_with({run("BM_TrainSetUp/" + std::to_string(workers) + "/manual_time", kSetUp * stretch, "ms")})));
  }
  const Calibration c = calibrate(files, {});
  EXPECT_NEAR(c.setup_s.value, kSetUp, 1e-12);
  EXPECT_EQ(c.setup_s.points, 3);
  EXPECT_LT(c.setup_s.residual, 1e-9);
  EXPECT_NE(c.setup_s.source.find("train_setup-w3.json"), std::string::npos);
  // A set-up twice as long at 3 workers is not the stretch: the fit keeps the median (80 ms of 80, 80 and 160 ms), and
  // its residual and spread show the outlier: ratios 1, 1, 2, so the 90th percentile at 1.8.
  files.back() = write("train_setup-w3.json", file_with({run("BM_TrainSetUp/3/manual_time", 2 * kSetUp * 1.5, "ms")}));
  const Calibration skewed = calibrate(files, {});
  EXPECT_NEAR(skewed.setup_s.value, kSetUp, 1e-12);
  EXPECT_GT(skewed.setup_s.residual, 0.0);
  EXPECT_NEAR(skewed.setup_s.spread.low, 1.0, 1e-12);
  EXPECT_NEAR(skewed.setup_s.spread.high, 1.8, 1e-12);
  EXPECT_NE(skewed.setup_s.measured_by.find("BM_TrainSetUp"), std::string::npos);
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(without, path);
  const Calibration old = read_calibration(path);
  EXPECT_EQ(old.setup_s.points, 0);
  EXPECT_DOUBLE_EQ(old.setup_s.value, 0.0);
}

// The runs' own spread: three repetitions of one configuration whose totals are 0.9, 1.0 and 1.2 times their median,
// and a configuration run once, which says nothing of it: ratios 0.9, 1, 1.2, so the 10th percentile at 0.92 and
// the 90th at 1.16. calib.json carries it; a calibration without runs has none, and one made before it loads.
TEST_F(CalibrateTest, KeepsTheRunsOwnSpread) {
  const std::vector<std::string> files = all_files();
  std::vector<std::string> runs;
  for (const double total : {9.0, 10.0, 12.0, 30.0}) {
    results::ResultsFile r;
    r.config.mode = "async";
    r.config.io = "parallel";
    r.config.model = "mlp:64";
    r.config.batch = 64;
    r.config.epochs = 1;
    r.env.cores = 2;
    r.env.workers = total == 30.0 ? 2 : 1;
    r.env.servers = 1;
    r.phases[Phase::kTotal] = total;
    r.train.training_s = total / 2;
    const std::string path = (dir_ / ("run" + std::to_string(runs.size()) + ".json")).string();
    r.config.out = path;
    results::write_results_file(path, r);
    runs.push_back(path);
  }
  const Calibration c = calibrate(files, runs);
  EXPECT_EQ(c.run_spread.points, 3);
  EXPECT_DOUBLE_EQ(c.run_spread.value, 1.0);
  EXPECT_NEAR(c.run_spread.spread.low, 0.92, 1e-12);
  EXPECT_NEAR(c.run_spread.spread.high, 1.16, 1e-12);
  EXPECT_NE(c.run_spread.measured_by.find("configuration's median"), std::string::npos);
  const std::string path = (dir_ / "calib.json").string();
  write_calibration(c, path);
  EXPECT_DOUBLE_EQ(read_calibration(path).run_spread.spread.high, c.run_spread.spread.high);
  EXPECT_EQ(calibrate(files, {}).run_spread.points, 0);
  results::Json old = results::Json::parse(std::ifstream(path));
  old.erase("run_total_spread");
  EXPECT_EQ(read_calibration(write("old_calib.json", old)).run_spread.points, 0);
}

}  // namespace
}  // namespace psbench::perf
