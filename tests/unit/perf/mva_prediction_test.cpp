// predict_mva where ranks outnumber cores: each server's demand stretches by its share of the cores, and the
// prediction stays within the CPU's bound.
#include "perf/mva_prediction.hpp"

#include <gtest/gtest.h>

namespace psbench::perf {
namespace {

// mlp:64 on 28x28 inputs; t_fb 10 ms at any batch, the update 2 ms for the whole vector, push/pull over the
// window 3 ms (1 ms beyond the update); a 2-core machine.
Calibration two_core_calibration() {
  Calibration c;
  c.machine.cores = 2;
  c.compute.push_back({"mlp:64", LinearFit{0.010, 0.0, "nn.json", 0.0, 2, {}}});
  c.update = LinearFit{0.0, 0.002 / (4.0 * 50890.0), "server_update.json", 0.0, 2, {}};
  c.exchange_shared_window = LinearFit{0.0, 0.003 / (4.0 * 50890.0), "push_pull.json", 0.0, 2, {}};
  c.disk_sequential = LinearFit{0.0, 1e-9, "data_io.json", 0.0, 2, {}};
  c.disk_sequential_Bps = {1e9, "data_io.json", 0.0, 2};
  c.disk_parallel_Bps = {1e9, "data_io.json", 0.0, 2};
  return c;
}

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

}  // namespace
}  // namespace psbench::perf
