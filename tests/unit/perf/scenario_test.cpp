// step_costs' set-up term: the calibrated one-worker set-up, stretched where a node's workers outnumber its
// cores (each builds its model on a core), and left alone where every worker has a core.
#include "perf/scenario.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

// The 2-core calibration with a set-up of 0.1 s.
Calibration setup_calibration() {
  Calibration c = test_support::two_core_calibration();
  c.setup_s = {0.1, "runs", 0.0, 3};
  return c;
}

Scenario on(const std::string& platform) {
  Scenario s;
  s.model = "mlp:64";
  s.platform = parse_platform(platform, 2);
  return s;
}

TEST(StepCosts, SetUpStretchesByTheWorkersPerCore) {
  const Calibration c = setup_calibration();
  const Scenario here = on("this");
  EXPECT_DOUBLE_EQ(step_costs(c, here, 1, 1).setup_s, 0.1);  // 1 worker, 2 cores
  EXPECT_DOUBLE_EQ(step_costs(c, here, 2, 2).setup_s, 0.1);  // 2 workers on 2 cores: the servers' is light
  EXPECT_DOUBLE_EQ(step_costs(c, here, 4, 1).setup_s, 0.2);  // 4 workers share 2 cores: twice as long
  EXPECT_DOUBLE_EQ(step_costs(c, here, 7, 2).setup_s, 0.35);
}

TEST(StepCosts, SetUpOnARackCountsTheBusiestNode) {
  const Calibration c = setup_calibration();
  Scenario rack = on("rack:64:10");
  rack.ranks_per_node = 1;  // one rank per 2-core node: never stretched
  EXPECT_DOUBLE_EQ(step_costs(c, rack, 32, 1).setup_s, 0.1);
  rack.ranks_per_node = 6;  // 6 workers on a node's 2 cores
  EXPECT_DOUBLE_EQ(step_costs(c, rack, 48, 2).setup_s, 0.3);
}

// --delay-compensation: D_s is the compensated update's own fit at a shard's bytes (the window's exchange still
// takes the plain update out of the round trip); a calibration without that fit is refused by name.
TEST(StepCosts, DelayCompensationTakesItsOwnUpdateFit) {
  Calibration c = test_support::two_core_calibration();
  Scenario here = on("this");
  here.delay_compensation = true;
  EXPECT_THROW((void)step_costs(c, here, 2, 1), UserError);
  c.update_compensated = LinearFit{0.0, 0.0028 / (4.0 * 50890.0), "server_update.json", 0.0, 2, {}};
  EXPECT_NEAR(step_costs(c, here, 2, 1).service_s, 0.0028, 1e-12);
  EXPECT_NEAR(step_costs(c, here, 2, 2).service_s, 0.0014, 1e-12);
  here.delay_compensation = false;
  EXPECT_NEAR(step_costs(c, here, 2, 1).service_s, 0.002, 1e-12);
  here.delay_compensation = true;
  EXPECT_NEAR(step_costs(c, here, 2, 1).exchange_s, 0.001, 1e-12);
}

// --intra-node: the exchange on `this` takes its path's push/pull fit, less the update the round trip holds; RMA
// without a fit of its own falls back to the messages fit.
TEST(StepCosts, TheExchangeTakesItsPathsFit) {
  Calibration c = test_support::two_core_calibration();
  c.exchange_messages = LinearFit{0.004, 0.0, "push_pull.json", 0.0, 2, {}};
  Scenario here = on("this");
  const double bytes = step_costs(c, here, 2, 1).parameter_bytes;
  const double update = c.update.at(bytes);
  ASSERT_GT(c.exchange_shared_window.at(bytes), update);
  EXPECT_NEAR(step_costs(c, here, 2, 1).exchange_s, c.exchange_shared_window.at(bytes) - update, 1e-12);
  here.intra_node = "messages";
  EXPECT_NEAR(step_costs(c, here, 2, 1).exchange_s, c.exchange_messages.at(bytes) - update, 1e-12);
  here.intra_node = "rma";
  EXPECT_NEAR(step_costs(c, here, 2, 1).exchange_s, c.exchange_messages.at(bytes) - update, 1e-12);
  c.exchange_rma = LinearFit{0.01, 0.0, "push_pull.json", 0.0, 2, {}};
  EXPECT_NEAR(step_costs(c, here, 2, 1).exchange_s, 0.01 - update, 1e-12);
}

// The later readers' fresh-page read at the bytes each reader reads (the whole set, or its partition); none
// without the fit, so the closed forms keep the disk's terms.
TEST(StepCosts, FreshPageReadsAtTheBytesEachReaderReads) {
  Calibration c = test_support::two_core_calibration();
  Scenario here = on("this");
  EXPECT_DOUBLE_EQ(step_costs(c, here, 2, 1).read_later_s, 0.0);
  c.disk_fresh_later = LinearFit{0.05, 2e-9, "data_io_fresh.json", 0.0, 2, {}};
  EXPECT_NEAR(step_costs(c, here, 2, 1).read_later_s, 0.05 + 4.71e7 * 2e-9, 1e-12);  // 60,000 x 785 bytes
  here.read = ReadMode::kPartition;
  EXPECT_NEAR(step_costs(c, here, 2, 1).read_later_s, 0.05 + 2.355e7 * 2e-9, 1e-12);
}

}  // namespace
}  // namespace psbench::perf
