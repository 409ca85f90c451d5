// predict_mva where ranks outnumber cores: each server's demand stretches by its share of the cores, and the
// prediction stays within the CPU's bound.
#include "perf/mva_prediction.hpp"

#include <gtest/gtest.h>

#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

using test_support::two_core_calibration;

Scenario two_cores() {
  Scenario s;
  s.model = "mlp:64";
  s.platform.kind = PlatformKind::kThis;
  s.platform.text = "this";
  s.platform.cores_per_node = 2;
  s.samples = 64000;
  return s;
}

TEST(MvaPrediction, ServersShareTheCoresTheyRunOn) {
  const Calibration calibration = two_core_calibration();
  const std::vector<Prediction> p = predict_mva(calibration, two_cores(), {1, 4}, 1);
  ASSERT_EQ(p.size(), 2U);
  // W = 1: two ranks, two cores: X = 1 / (10 + 1 + 2 ms), U = X x 2 ms.
  EXPECT_NEAR(p[0].updates_per_s, 1.0 / 0.013, 1e-6);
  EXPECT_NEAR(p[0].server_utilization, 0.002 / 0.013, 1e-9);
  // W = 4: five ranks on two cores. The server's demand per update, U / X, exceeds its 2 ms alone: it
  // runs beside the workers computing.
  const double demand = p[1].server_utilization / p[1].updates_per_s;
  EXPECT_GT(demand, 0.002 * 1.2);
  // Never faster than the cores allow: every update needs 10 + 2 ms of a core.
  EXPECT_LE(p[1].updates_per_s, 2.0 / 0.012 + 1e-9);
  EXPECT_LT(p[1].updates_per_s, 4.0 * p[0].updates_per_s);
}

// --pipeline, W = 1 on two cores: the worker's own work (10 ms and the 1 ms of copies) outlasts the round trip
// (1 + 2 ms), so the cycle is 11 ms, the fixed point of Z = t_pp + max(0, t_fb + t_sw - R_trip).
TEST(MvaPrediction, PipelineHidesTheRoundTripBehindTheNextStep) {
  Scenario scenario = two_cores();
  scenario.pipeline = true;
  const std::vector<Prediction> p = predict_mva(two_core_calibration(), scenario, {1}, 1);
  ASSERT_EQ(p.size(), 1U);
  EXPECT_NEAR(p[0].updates_per_s, 1.0 / 0.011, 1e-3 / 0.011);
  EXPECT_NEAR(p[0].staleness_mean, 1.0, 1e-9);  // its own previous update
}

}  // namespace
}  // namespace psbench::perf
