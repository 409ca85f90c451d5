// The fits calibrate uses: a least-squares line, and the table of medians per size that the push/pull and
// update times are interpolated from (values computed by hand).
#include "perf/fit.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

// Three repetitions at three sizes; the per-byte cost doubles from the second size on, as it does where a
// message stops fitting the cache.
std::vector<Point> measured() {
  return {{1000, 1.0},  {1000, 3.0},  {1000, 2.0},    // median 2
          {2000, 4.0},  {2000, 4.0},  {2000, 5.0},    // median 4
          {4000, 12.0}, {4000, 11.0}, {4000, 13.0}};  // median 12
}

TEST(FitTable, KeepsTheMedianOfEverySizeInOrder) {
  const LinearFit fit = fit_table(measured(), "bench.json", "push/pull");
  ASSERT_EQ(fit.table.size(), 3U);
  EXPECT_DOUBLE_EQ(fit.table[0].x, 1000);
  EXPECT_DOUBLE_EQ(fit.table[0].y, 2.0);
  EXPECT_DOUBLE_EQ(fit.table[1].y, 4.0);
  EXPECT_DOUBLE_EQ(fit.table[2].y, 12.0);
  EXPECT_EQ(fit.points, 9);
  EXPECT_EQ(fit.source, "bench.json");
}

TEST(FitTable, InterpolatesBetweenAndExtendsBeyondTheMeasuredSizes) {
  const LinearFit fit = fit_table(measured(), "bench.json", "push/pull");
  EXPECT_DOUBLE_EQ(fit.at(1000), 2.0);
  EXPECT_DOUBLE_EQ(fit.at(1500), 3.0);   // halfway between 2 and 4
  EXPECT_DOUBLE_EQ(fit.at(3000), 8.0);   // halfway between 4 and 12
  EXPECT_DOUBLE_EQ(fit.at(6000), 20.0);  // the last segment's 4 per 1000 beyond it
  // Below the smallest size: towards (0, the line's intercept, at most the first median).
  const double floor = std::min(std::max(0.0, fit.intercept), 2.0);
  EXPECT_DOUBLE_EQ(fit.at(500), floor + (2.0 - floor) * 0.5);
  EXPECT_DOUBLE_EQ(fit.at(0), floor);
}

TEST(FitTable, ItsResidualIsTheSpreadAroundTheMedians) {
  const LinearFit fit = fit_table(measured(), "bench.json", "push/pull");
  // The medians' deviations relative to each measured point: (1, -1/3, 0), (0, 0, -1/5), (0, 1/11, -1/13).
  const double squares = 1.0 + 1.0 / 9.0 + 1.0 / 25.0 + 1.0 / 121.0 + 1.0 / 169.0;
  EXPECT_NEAR(fit.residual, std::sqrt(squares / 9.0), 1e-12);
}

TEST(FitTable, RoundTripsThroughJson) {
  const LinearFit fit = fit_table(measured(), "bench.json", "push/pull");
  const LinearFit back = nlohmann::json(fit).get<LinearFit>();
  ASSERT_EQ(back.table.size(), fit.table.size());
  for (const double x : {0.0, 700.0, 1000.0, 2500.0, 9000.0}) EXPECT_DOUBLE_EQ(back.at(x), fit.at(x));
  const LinearFit line = fit_line(measured(), "bench.json", "push/pull");
  EXPECT_FALSE(nlohmann::json(line).contains("table"));
  EXPECT_TRUE(nlohmann::json(line).get<LinearFit>().table.empty());
}

TEST(FitTable, RefusesNoPoints) { EXPECT_THROW(fit_table({}, "bench.json", "push/pull"), UserError); }

TEST(FitLine, RecoversALineAndItsZeroResidual) {
  const LinearFit fit = fit_line({{0, 1.0}, {10, 3.0}, {20, 5.0}}, "nn.json", "the step time");
  EXPECT_NEAR(fit.intercept, 1.0, 1e-12);
  EXPECT_NEAR(fit.slope, 0.2, 1e-12);
  EXPECT_NEAR(fit.residual, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(fit.at(30), 7.0);
}

}  // namespace
}  // namespace psbench::perf
