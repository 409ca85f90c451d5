// The ideal and revised closed forms against values worked out by hand (in the comments).
#include "perf/closed_forms.hpp"

#include <gtest/gtest.h>

namespace psbench::perf {
namespace {

// t_fb 10 ms, t_pp 2 ms, D_s 3 ms, 100 steps per worker, 4 workers, 1 server on an 8-core node; each worker
// reads 100 MB at 1 GB/s after a 0.1 s open, 2 GB/s for all readers at once; set-up 0.5 s; 25,600 samples.
StepCosts hand_costs() {
  StepCosts c;
  c.workers = 4;
  c.servers = 1;
  c.nodes = 1;
  c.cores_per_node = 8;
  c.ranks_per_node = 5;
  c.compute_s = 0.010;
  c.exchange_s = 0.002;
  c.service_s = 0.003;
  c.steps_per_worker = 100;
  c.read_bytes = 1e8;
  c.read_open_s = 0.1;
  c.disk_sequential_Bps = 1e9;
  c.disk_parallel_Bps = 2e9;
  c.setup_s = 0.5;
  c.training_samples = 25600;
  return c;
}

TEST(ClosedForms, IdealScalesPerfectly) {
  const Prediction p = predict_ideal(hand_costs());
  EXPECT_DOUBLE_EQ(p.init_io_s, 0.2);            // 0.1 + 1e8 / 1e9
  EXPECT_DOUBLE_EQ(p.compute_s, 1.5);            // 100 x (10 + 2 + 3) ms
  EXPECT_DOUBLE_EQ(p.total_s, 2.2);              // 0.5 + 0.2 + 1.5
  EXPECT_DOUBLE_EQ(p.updates_per_s, 400 / 1.5);  // 4 x 100 updates in 1.5 s
  EXPECT_DOUBLE_EQ(p.samples_per_s, 25600 / 1.5);
  EXPECT_NEAR(p.server_utilization, 0.8, 1e-12);                  // 266.7/s x 3 ms
  EXPECT_DOUBLE_EQ(p.staleness_mean, 3.0 * (1.0 - 1.0 / 200.0));  // W - 1, half of it in the first of 100 rounds
  EXPECT_FALSE(p.knee_workers.has_value());
}

TEST(ClosedForms, RevisedReadsOneAfterAnother) {
  const StepCosts c = hand_costs();
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kSequential), 0.8);  // 4 x (0.1 + 0.1)
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kParallel), 0.3);    // 0.1 + max(0.1, 4e8 / 2e9)
  const Prediction p = predict_revised(c, IoMode::kSequential);
  EXPECT_DOUBLE_EQ(p.compute_s, 1.5);  // unsaturated: max(1.5, 400 x 3 ms = 1.2)
  EXPECT_DOUBLE_EQ(p.total_s, 0.5 + 0.8 + 1.5);
  ASSERT_TRUE(p.knee_workers.has_value());
  EXPECT_DOUBLE_EQ(*p.knee_workers, 5.0);  // 15 ms / 3 ms
}

// Fresh pages: a node's first reader reads as the disk terms say, 0.1 + 1e8 / 1e9 = 0.2 s; each later one 0.25 s.
TEST(ClosedForms, LaterReadersPayForFreshPages) {
  StepCosts c = hand_costs();
  c.read_later_s = 0.25;
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kSequential), 0.95);  // 0.2 + 3 x 0.25
  c.cores_per_node = 2;
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kParallel), 0.475);  // (0.2 + 3 x 0.25) / min(4, 2) > the disk's 0.3
  c.cores_per_node = 8;
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kParallel), 0.3);  // the disk's: 0.95 / 4 < 0.3
  c.ranks_per_node = 2;  // two workers a node: each node's first reader reads in 0.2 s
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kSequential), 0.9);  // 2 x 0.2 + 2 x 0.25
  c.workers = 1;
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kSequential), 0.2);
  EXPECT_DOUBLE_EQ(revised_init_io(c, IoMode::kParallel), 0.2);
}

TEST(ClosedForms, RevisedSaturatesAtTheServer) {
  StepCosts c = hand_costs();
  c.workers = 8;
  c.ranks_per_node = 9;
  c.steps_per_worker = 50;
  const Prediction p = predict_revised(c, IoMode::kParallel);
  EXPECT_DOUBLE_EQ(p.compute_s, 1.2);  // max(50 x 15 ms, 400 x 3 ms)
  EXPECT_NEAR(p.server_utilization, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(predict_ideal(c).compute_s, 0.75);
}

TEST(ClosedForms, RevisedChargesSharedCores) {
  StepCosts c = hand_costs();
  c.cores_per_node = 2;  // 5 ranks on 2 cores
  const Prediction p = predict_revised(c, IoMode::kSequential);
  EXPECT_DOUBLE_EQ(p.compute_s, 2.6);  // 400 x (10 + 3) ms / 2 cores
}

TEST(ClosedForms, StalenessEstimate) {
  EXPECT_DOUBLE_EQ(staleness_estimate(1, 100), 0.0);
  EXPECT_DOUBLE_EQ(staleness_estimate(4, 1), 1.5);   // one round from version 0: 0, 1, 2, 3 versions behind
  EXPECT_DOUBLE_EQ(staleness_estimate(4, 2), 2.25);  // then 3 each: (6 + 12) / 8
}

// Saturated, a worker's push waits in the server's queue, and the updates applied meanwhile count too: the
// staleness stays W - 1 (less the first round's half), as the sim and psbench's server count it.
TEST(ClosedForms, StalenessCountsTheUpdatesAheadInTheQueue) {
  StepCosts c = hand_costs();
  c.workers = 8;
  c.ranks_per_node = 9;
  c.steps_per_worker = 50;
  const Prediction p = predict_revised(c, IoMode::kParallel);
  EXPECT_NEAR(p.server_utilization, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(p.staleness_mean, 7.0 * (1.0 - 1.0 / 100.0));
}

// --pipeline: the exchange runs beside the next step. With t_pp all software (the copies stay on the
// worker's core, as on one node) only D_s hides: cycle max(10 + 2, 2 + 3) = 12 ms. With 1.5 ms of it on
// the link (t_sw 0.5 ms) the worker's own work is 10.5 ms and the round trip 5 ms: 10.5 ms.
TEST(ClosedForms, PipelineHidesOnlyTheRoundTripBesideTheWorkersOwnWork) {
  StepCosts c = hand_costs();
  c.pipeline = true;
  c.exchange_software_s = c.exchange_s;
  EXPECT_DOUBLE_EQ(predict_ideal(c).compute_s, 100 * 0.012);
  EXPECT_DOUBLE_EQ(predict_ideal(c).staleness_mean, 3.0 * (1.0 - 1.0 / 200.0) + 4.0);  // and W more: a cycle older
  c.exchange_software_s = 0.0005;
  EXPECT_DOUBLE_EQ(predict_ideal(c).compute_s, 100 * 0.0105);
  // A round trip longer than the worker's work is what the cycle waits for: t_pp 20 ms, D_s 3 ms.
  c.exchange_s = 0.020;
  EXPECT_DOUBLE_EQ(predict_ideal(c).compute_s, 100 * 0.023);
  // The server's bound does not move: 400 updates x 3 ms.
  c.exchange_s = 0.002;
  c.service_s = 0.010;
  EXPECT_DOUBLE_EQ(predict_revised(c, IoMode::kSequential).compute_s, 400 * 0.010);
}

}  // namespace
}  // namespace psbench::perf
