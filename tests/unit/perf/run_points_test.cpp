// add_run: the set-up point is what a run's total holds beyond its read and its training, and a run whose
// ranks outnumber its cores gives read points only.
#include "perf/run_points.hpp"

#include <gtest/gtest.h>

namespace psbench::perf {
namespace {

// 1 server and 2 sequential readers on `cores` cores: reads end at 0.3 s (the second waited 0.2 s, read
// 0.1 s), training takes 2 s of a 2.5 s total.
results::ResultsFile two_reader_run(int cores) {
  results::ResultsFile run;
  run.config.mode = "async";
  run.config.io = "sequential";
  run.config.model = "mlp:64";
  run.config.batch = 64;
  run.env.cores = cores;
  run.env.workers = 2;
  run.env.servers = 1;
  run.model.parameter_bytes = 4000;
  run.load.resize(2);
  run.load[0].timing.bytes = run.load[1].timing.bytes = 1000;
  run.load[0].timing.read_s = 0.15;
  run.load[1].timing.read_s = 0.1;
  run.load[1].timing.wait_s = 0.2;
  run.phases[Phase::kTotal] = 2.5;
  run.train.training_s = 2.0;
  return run;
}

TEST(RunPoints, ReadEndsWithTheLastReader) { EXPECT_DOUBLE_EQ(read_end_s(two_reader_run(4)), 0.3); }

TEST(RunPoints, SetUpIsTheTotalBeyondReadAndTraining) {
  RunPoints points;
  add_run(two_reader_run(4), "run.json", points);
  ASSERT_EQ(points.setup_s.size(), 1U);
  EXPECT_NEAR(points.setup_s[0], 0.2, 1e-12);  // 2.5 - 2.0 - 0.3
  EXPECT_EQ(points.sequential_read.size(), 2U);
}

TEST(RunPoints, ContendedRunGivesReadsOnly) {
  RunPoints points;
  add_run(two_reader_run(2), "run.json", points);  // 3 ranks on 2 cores
  EXPECT_TRUE(points.setup_s.empty());
  EXPECT_EQ(points.sequential_read.size(), 2U);
  EXPECT_EQ(points.sources.size(), 1U);
}

// Every async run's total joins its configuration's list, contended or not; only the output file may differ.
TEST(RunPoints, TotalsAreKeptPerConfiguration) {
  RunPoints points;
  results::ResultsFile run = two_reader_run(2);
  for (const char* out : {"a.json", "b.json"}) {
    run.config.out = out;
    add_run(run, out, points);
  }
  run.env.workers = 3;
  add_run(run, "c.json", points);
  ASSERT_EQ(points.total_s.size(), 2U);
  EXPECT_EQ(points.total_s.at(configuration_of(two_reader_run(4))), (std::vector<double>{2.5, 2.5}));
  EXPECT_EQ(points.total_s.at(configuration_of(run)).size(), 1U);
}

// The final evaluation: 300 test samples at the training split's 100 bytes per sample (1000 bytes for 10 samples, each
// reader reading the whole split), 0.05 s; a run without one gives no point.
TEST(RunPoints, EvaluationPointCarriesTheTestSplitsBytes) {
  results::ResultsFile run = two_reader_run(4);
  run.train.total_samples = 10;
  RunPoints points;
  add_run(run, "run.json", points);
  EXPECT_TRUE(points.evaluation.empty());
  run.train.test_samples = 300;
  run.train.evaluation_s = 0.05;
  add_run(run, "run.json", points);
  ASSERT_EQ(points.evaluation.at("mlp:64").size(), 1U);
  const EvaluationPoint& e = points.evaluation.at("mlp:64").front();
  EXPECT_DOUBLE_EQ(e.test_samples, 300.0);
  EXPECT_DOUBLE_EQ(e.test_bytes, 30000.0);
  EXPECT_DOUBLE_EQ(e.seconds, 0.05);
}

}  // namespace
}  // namespace psbench::perf
