#include "contract_reporter.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

namespace psbench::bench {
namespace {

using BenchmarkRun = benchmark::BenchmarkReporter::Run;

// Keeps what it is handed.
class Recorder : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<BenchmarkRun>& runs) override {
    runs_.insert(runs_.end(), runs.begin(), runs.end());
  }
  std::vector<BenchmarkRun> runs_;
};

BenchmarkRun run(const std::string& family, const std::string& args, double microseconds) {
  BenchmarkRun r;
  r.run_name.function_name = family;
  r.run_name.args = args;
  r.run_name.time_type = "manual_time";
  r.iterations = 10;
  r.time_unit = benchmark::kMicrosecond;
  r.real_accumulated_time = 10 * microseconds * 1e-6;
  return r;
}

TEST(ContractReporter, PushPullGetsItsPipelinedLimitAndNamesEndInBytes) {
  Recorder recorder;
  ContractReporter reporter(recorder);
  reporter.ReportRuns(
      {run("BM_LocalUpdate", "4096", 2.0), run("BM_LocalUpdate", "4096", 4.0), run("BM_LocalUpdate", "4096", 3.0)});
  reporter.ReportRuns({run("BM_RawMpiExchange", "4096", 5.0), run("BM_RawMpiExchange", "1048576", 100.0)});
  reporter.ReportRuns({run("BM_PushPull", "path:0/4096", 10.0), run("BM_PushPull", "path:1/1048576", 80.0)});
  EXPECT_TRUE(recorder.runs_.empty());  // held until the end
  reporter.Finalize();
  ASSERT_EQ(recorder.runs_.size(), 7U);
  std::map<std::string, const BenchmarkRun*> by_name;
  for (const BenchmarkRun& r : recorder.runs_) by_name[r.benchmark_name()] = &r;
  ASSERT_TRUE(by_name.count("BM_PushPull/path:0/4096"));
  const BenchmarkRun& small = *by_name["BM_PushPull/path:0/4096"];
  EXPECT_DOUBLE_EQ(small.counters.at("limit_us").value, 5.0);  // max(raw 5, update median 3)
  EXPECT_DOUBLE_EQ(small.counters.at("vs_limit").value, 0.5);
  // No update at 1 MiB in this run: no limit, no vs_limit.
  EXPECT_EQ(by_name["BM_PushPull/path:1/1048576"]->counters.count("vs_limit"), 0U);
  EXPECT_EQ(by_name["BM_RawMpiExchange/4096"]->counters.count("vs_limit"), 0U);
}

TEST(ContractReporter, MedianAggregatesAreTheLimitWhenReported) {
  Recorder recorder;
  ContractReporter reporter(recorder);
  BenchmarkRun update = run("BM_LocalUpdate", "4096", 8.0);
  update.run_type = BenchmarkRun::RT_Aggregate;
  update.aggregate_name = "median";
  BenchmarkRun push_pull = run("BM_PushPull", "path:0/4096", 16.0);
  push_pull.run_type = BenchmarkRun::RT_Aggregate;
  push_pull.aggregate_name = "median";
  BenchmarkRun spread = push_pull;
  spread.aggregate_name = "stddev";
  reporter.ReportRuns({update, run("BM_RawMpiExchange", "4096", 4.0), push_pull, spread});
  reporter.Finalize();
  EXPECT_DOUBLE_EQ(recorder.runs_[2].counters.at("vs_limit").value, 0.5);
  EXPECT_EQ(recorder.runs_[3].counters.count("vs_limit"), 0U);  // a spread has no ratio to a limit
  EXPECT_EQ(recorder.runs_[2].benchmark_name(), "BM_PushPull/path:0/4096_median");
}

// A rank that must not write the output file loses both output flags and keeps every other argument in order.
TEST(OutputFile, DroppedFromArgvBeforeInitialize) {
  std::string words[] = {"bench", "--max-bytes=4096", "--benchmark_out=f.json", "--benchmark_filter=X",
                         "--benchmark_out_format=json"};
  char* argv[] = {words[0].data(), words[1].data(), words[2].data(), words[3].data(), words[4].data(), nullptr};
  int argc = 5;
  EXPECT_TRUE(names_output_file(argc, argv));
  drop_output_file(argc, argv);
  ASSERT_EQ(argc, 3);
  EXPECT_EQ(std::string(argv[0]), "bench");
  EXPECT_EQ(std::string(argv[1]), "--max-bytes=4096");
  EXPECT_EQ(std::string(argv[2]), "--benchmark_filter=X");
  EXPECT_EQ(argv[3], nullptr);
  EXPECT_FALSE(names_output_file(argc, argv));
}

}  // namespace
}  // namespace psbench::bench
