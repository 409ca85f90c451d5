// The calibration's spread, the intervals drawn from it, validate's coverage count and its utilisation and staleness
// errors, and the terms the benchmarks added (the final evaluation, ranks sharing cores), against hand values.
#include "perf/interval.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "common/median.hpp"
#include "perf/predict.hpp"
#include "perf/scenario.hpp"
#include "perf/validation.hpp"
#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

// Sorted 0.8, 0.9, 1.0, 1.1, 1.2: the 10th percentile at 0.4 of the way from 0.8 to 0.9, the 90th at 0.6 from 1.1.
TEST(Spread, IsTheTenthAndNinetiethPercentileOfTheRatios) {
  const Spread s = spread_of({1.0, 1.2, 0.8, 1.1, 0.9});
  EXPECT_NEAR(s.low, 0.84, 1e-12);
  EXPECT_NEAR(s.high, 1.16, 1e-12);
  EXPECT_DOUBLE_EQ(spread_of({1.3}).low, 1.0);         // one point: no spread
  EXPECT_DOUBLE_EQ(spread_of({1.0, -0.5}).high, 1.0);  // a ratio not positive: none either
  // ln(1.25 / 0.8) / (2 x 1.2815516) = 0.4462871 / 2.5631031
  EXPECT_NEAR(spread_sigma({0.8, 1.25}), 0.1741197, 1e-6);
  EXPECT_DOUBLE_EQ(spread_sigma({}), 0.0);
}

// The median, not the mean (22), of 1, 2, 3, 4, 100; ratios 1/3 .. 100/3.
TEST(Spread, FitMedianKeepsTheMedianAndTheSpread) {
  const FittedValue v = fit_median({4.0, 1.0, 100.0, 3.0, 2.0}, "f.json", "a value");
  EXPECT_DOUBLE_EQ(v.value, 3.0);
  EXPECT_NEAR(v.spread.low, (1.0 + 0.4) / 3.0, 1e-12);          // 10th percentile 1.4
  EXPECT_NEAR(v.spread.high, (4.0 + 0.6 * 96.0) / 3.0, 1e-12);  // 90th percentile 61.6
}

// Three repetitions at one size, 1, 2 and 3 s: the table's median 2, ratios 0.5, 1, 1.5.
TEST(Spread, FitTableMeasuresRepetitionsAgainstTheirMedian) {
  const LinearFit fit = fit_table({{100.0, 1.0}, {100.0, 2.0}, {100.0, 3.0}}, "f.json", "a time");
  EXPECT_NEAR(fit.spread.low, 0.6, 1e-12);
  EXPECT_NEAR(fit.spread.high, 1.4, 1e-12);
}

// Every value scaled by its own log-normal factor: over many draws, the factor's percentiles are the spread's; a value
// without spread never moves, and the sequential bandwidth moves against its read line.
TEST(DrawCalibration, FactorsFollowEachSpread) {
  Calibration c = test_support::two_core_calibration();
  c.setup_s = {0.1, "runs", 0.0, 5, {0.8, 1.25}, "runs"};
  c.disk_sequential.spread = {0.9, 1.1};
  std::mt19937_64 random(7);
  std::vector<double> setup;
  for (int i = 0; i < 4000; ++i) {
    const Calibration d = draw_calibration(c, random);
    setup.push_back(d.setup_s.value / 0.1);
    EXPECT_DOUBLE_EQ(d.compute.front().step.intercept, 0.010);                       // no spread
    EXPECT_NEAR(d.disk_sequential_Bps.value * d.disk_sequential.slope, 1.0, 1e-12);  // B = 1 / slope still
  }
  EXPECT_NEAR(percentile(setup, 0.1), 0.8, 0.02);
  EXPECT_NEAR(percentile(setup, 0.9), 1.25, 0.03);
}

// mlp:64 on this 2-core machine with one server.
PredictRequest mlp_request(std::vector<int> workers, std::vector<Kind> kinds) {
  PredictRequest request;
  request.scenario.model = "mlp:64";
  request.scenario.platform = parse_platform("this", 2);
  request.workers = std::move(workers);
  request.servers = {1};
  request.kinds = std::move(kinds);
  return request;
}

// Only the set-up (0.1 s) varies, by 0.8-1.25: ideal's total interval is the rest plus 0.08 and 0.125 s, and its
// compute and start-up intervals are the points themselves.
TEST(Intervals, PropagateTheSpreadToEachTime) {
  Calibration c = test_support::two_core_calibration();
  c.setup_s = {0.1, "runs", 0.0, 5, {0.8, 1.25}, "runs"};
  PredictRequest request = mlp_request({1, 2}, {Kind::kIdeal, Kind::kMva});
  request.interval_samples = 2000;
  const std::vector<Prediction> predictions = predict(c, request);
  ASSERT_EQ(predictions.size(), 4U);
  for (const Prediction& p : predictions) {
    ASSERT_TRUE(p.interval.has_value());
    const double rest = p.total_s - 0.1;
    EXPECT_NEAR(p.interval->total_s.low, rest + 0.08, 0.002) << kind_name(p.kind) << " W=" << p.workers;
    EXPECT_NEAR(p.interval->total_s.high, rest + 0.125, 0.003) << kind_name(p.kind) << " W=" << p.workers;
    EXPECT_DOUBLE_EQ(p.interval->compute_s.low, p.compute_s);
    EXPECT_DOUBLE_EQ(p.interval->compute_s.high, p.compute_s);
    EXPECT_DOUBLE_EQ(p.interval->init_io_s.high, p.init_io_s);
  }
  request.interval_samples = 0;
  EXPECT_FALSE(predict(c, request).front().interval.has_value());
}

// One run's own spread for one run, a mean's for two, then the median's large-sample sigma, sqrt(pi / 2n).
TEST(Intervals, TheMedianOfRunsScattersLessThanOneRun) {
  EXPECT_DOUBLE_EQ(median_spread_scale(1), 1.0);
  EXPECT_DOUBLE_EQ(median_spread_scale(0), 1.0);
  EXPECT_NEAR(median_spread_scale(2), 0.7071068, 1e-6);
  EXPECT_NEAR(median_spread_scale(5), 0.5604991, 1e-6);  // sqrt(pi / 10)
  EXPECT_NEAR(median_spread_scale(100), 0.1253314, 1e-6);
}

// Nothing but the runs' own spread, 0.8-1.25 a run: one run's total interval is the total times 0.8 and 1.25; the
// median of 5 runs', times exp(-+1.2816 sigma sqrt(pi / 10)) with sigma = ln(1.25 / 0.8) / 2.5631; compute keeps its
// point.
TEST(Intervals, HoldTheRunsOwnSpreadForTheMedianOfTheRuns) {
  Calibration c = test_support::two_core_calibration();
  c.run_spread = {1.0, "runs", 0.0, 10, {0.8, 1.25}, "runs"};
  PredictRequest request = mlp_request({2}, {Kind::kMva});
  request.interval_samples = 4000;
  const Prediction one = predict(c, request).front();
  EXPECT_NEAR(one.interval->total_s.low / one.total_s, 0.8, 0.01);
  EXPECT_NEAR(one.interval->total_s.high / one.total_s, 1.25, 0.015);
  EXPECT_DOUBLE_EQ(one.interval->compute_s.high, one.compute_s);
  request.runs_in_median = 5;
  const Prediction five = predict(c, request).front();
  const double step = 1.2815516 * spread_sigma({0.8, 1.25}) * std::sqrt(std::numbers::pi / 10.0);
  EXPECT_NEAR(five.interval->total_s.low / five.total_s, std::exp(-step), 0.01);
  EXPECT_NEAR(five.interval->total_s.high / five.total_s, std::exp(step), 0.01);
}

RunComparison configuration(double measured, double low, double high, double predicted) {
  RunComparison r;
  r.servers = 1;
  for (const char* phase : kValidatedPhases) {
    r.measured[phase] = measured;
    r.predicted[Kind::kMva][phase] = predicted;
    r.interval[Kind::kMva][phase] = {low, high};
  }
  return r;
}

// Measured 1.0 inside [0.9, 1.1] (width 20% of 1.0), 1.2 outside [0.9, 1.1] (20%), 1.1 on the bound [1.0, 1.1]
// (10% of 1.05, 9.52%), one without intervals left out: 2 of 3, median width 20%.
TEST(Coverage, CountsMediansInsideTheirIntervals) {
  std::vector<RunComparison> configurations = {configuration(1.0, 0.9, 1.1, 1.0), configuration(1.2, 0.9, 1.1, 1.0),
                                               configuration(1.1, 1.0, 1.1, 1.05), configuration(1.0, 0.5, 2.0, 1.0)};
  configurations.back().interval.clear();
  const CoverageTable table = interval_coverage(configurations, {Kind::kMva});
  for (const char* phase : kValidatedPhases) {
    const IntervalCoverage& c = table.at(Kind::kMva).at(phase);
    EXPECT_EQ(c.inside, 2) << phase;
    EXPECT_EQ(c.count, 3) << phase;
    EXPECT_NEAR(c.median_width_percent, 20.0, 1e-9) << phase;
  }
}

// Utilisation 0.5 against 0.6 and 0.9 against 0.7 (differences 0.1 and 0.2); staleness 3 against 2 (50%) and 1
// against 0 (left out: nothing to divide by); a serverless configuration left out.
TEST(Coverage, UtilisationAndStalenessErrorsPerKind) {
  std::vector<RunComparison> runs(3);
  const double measured[3][2] = {{0.5, 2.0}, {0.9, 0.0}, {0.1, 9.0}};
  const double predicted[3][2] = {{0.6, 3.0}, {0.7, 1.0}, {0.9, 1.0}};
  for (int i = 0; i < 3; ++i) {
    runs[i].servers = i == 2 ? 0 : 1;
    runs[i].measured = {{"server_utilization", measured[i][0]}, {"staleness_mean", measured[i][1]}};
    runs[i].predicted[Kind::kSim] = {{"server_utilization", predicted[i][0]}, {"staleness_mean", predicted[i][1]}};
  }
  const QuantityErrors e = quantity_errors(runs, {Kind::kSim}).at(Kind::kSim);
  EXPECT_NEAR(e.utilization_mean_abs_diff, 0.15, 1e-12);
  EXPECT_NEAR(e.utilization_max_abs_diff, 0.2, 1e-12);
  EXPECT_NEAR(e.staleness_mape_percent, 50.0, 1e-9);
  EXPECT_EQ(e.staleness_count, 1);
}

Scenario here() {
  Scenario s;
  s.model = "mlp:64";
  s.platform = parse_platform("this", 2);
  return s;
}

// The final evaluation: the test split's read, t_open 0.01 s + 10,000 x 785 B at 1 GB/s = 0.01785 s, then
// ceil(10,000 / 128) = 79 calls of 128 samples at 2 ms + 10 us per sample = 3.28 ms: 0.25912 s; 0.27697 s in all.
// Without the benchmark, a third of the train step at 128 (10 ms / 3) per call.
TEST(Terms, FinalEvaluationReadsAndEvaluatesTheTestSplit) {
  Calibration c = test_support::two_core_calibration();
  c.disk_sequential.intercept = 0.01;
  Scenario s = here();
  s.test_samples = 10000;
  EXPECT_NEAR(step_costs(c, s, 1, 1).evaluation_s, 0.01785 + 79.0 * 0.010 / 3.0, 1e-12);
  c.evaluate.push_back({"mlp:64", LinearFit{0.002, 10e-6, "nn.json", 0.0, 2, {}}});
  EXPECT_NEAR(step_costs(c, s, 1, 1).evaluation_s, 0.01785 + 79.0 * 0.00328, 1e-12);
  EXPECT_NEAR(step_costs(c, s, 3, 1).evaluation_s, 0.01785 + 79.0 * 0.00328, 1e-12);  // one worker evaluates
  s.test_samples = 0;
  EXPECT_DOUBLE_EQ(step_costs(c, s, 1, 1).evaluation_s, 0.0);
}

// A read calibrated at several sizes keeps its medians: 47.1 MB (60,000 x 785 B) read in 47.1 ms at the first size
// and 3 x that at twice the bytes, so a reader of 47.1 MB reads at 1 GB/s, not at the line's 2 ns/byte.
TEST(Terms, FirstReadTakesTheMediansAtItsSize) {
  Calibration c = test_support::two_core_calibration();
  c.disk_sequential = fit_table({{47.1e6, 0.0471}, {94.2e6, 3 * 0.0471}}, "runs", "the read");
  c.disk_sequential_Bps = {1.0 / c.disk_sequential.slope, "runs", 0.0, 2};
  const StepCosts costs = step_costs(c, here(), 1, 1);
  EXPECT_DOUBLE_EQ(costs.read_bytes, 47.1e6);
  EXPECT_NEAR(costs.read_open_s + costs.read_bytes / costs.disk_sequential_Bps, 0.0471, 1e-12);
}

// Ranks sharing cores: measured stretch 1.0 at 0.5 ranks per core, 1.2 at 1 and 1.3 at 1.5. On 2 cores, 1 worker
// (0.5 per core) computes in 10 ms, 2 workers (1.0) in 12 ms, 3 (1.5) in 13 ms, 5 (2.5, beyond the measured) held at
// 13 ms; without the benchmark, 10 ms at any count.
TEST(Terms, CoreSharingStretchesTheStep) {
  Calibration c = test_support::two_core_calibration();
  const Scenario s = here();
  EXPECT_DOUBLE_EQ(step_costs(c, s, 3, 1).compute_s, 0.010);
  c.core_sharing = fit_table({{0.5, 1.0}, {1.0, 1.2}, {1.5, 1.3}}, "shared_steps.json", "the stretch");
  EXPECT_DOUBLE_EQ(step_costs(c, s, 1, 1).compute_s, 0.010);
  EXPECT_NEAR(step_costs(c, s, 2, 1).compute_s, 0.012, 1e-15);
  EXPECT_NEAR(step_costs(c, s, 3, 1).compute_s, 0.013, 1e-15);
  EXPECT_NEAR(step_costs(c, s, 5, 1).compute_s, 0.013, 1e-15);
  EXPECT_NEAR(step_costs(c, s, 3, 1).core_sharing, 1.3, 1e-15);
}

}  // namespace
}  // namespace psbench::perf
