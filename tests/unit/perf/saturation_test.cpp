// The saturation benchmark's model: MVA against values computed by hand (k = 1, the general-service correction,
// the limit 1/D), the knee rule, the simulation against exact MVA where their assumptions coincide, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "perf/saturation/saturation_compare.hpp"
#include "perf/saturation/saturation_model.hpp"
#include "perf/saturation/saturation_sim.hpp"

namespace psbench::perf {
namespace {

constexpr double kZ = 0.002;   // think time, s
constexpr double kD = 0.001;   // a server's service time per update of its shard, s
constexpr double kC = 0.0001;  // client overhead, s

SaturationInputs inputs(int servers = 1, int cores = 64, double cv = 0.0) {
  SaturationInputs in;
  in.servers = servers;
  in.parameters = 1000;
  in.think_s = kZ;
  in.service_s = kD;
  in.service_cv = cv;
  in.overhead_s = kC;
  in.cores = cores;
  return in;
}

results::SaturationRun measured_run() {
  results::SaturationRun run;
  run.servers = 1;
  run.parameters = 535818;
  run.think_us = 2000.0;
  run.service_us = 1000.0;
  run.service_cv = 0.1;
  run.points = {{1, 300.0, 0.3, 1100.0, 0.3}, {2, 600.0, 0.6, 1200.0, 0.7}, {3, 900.0, 0.9, 1300.0, 1.2}};
  return run;
}

TEST(SaturationMva, OneClientCyclesThroughThinkOverheadAndService) {
  const auto curve = predict_saturation_mva(inputs(), {1}, TimeDistribution::kCalibrated);
  ASSERT_EQ(curve.size(), 1U);
  EXPECT_NEAR(curve[0].updates_per_s, 1.0 / (kZ + kC + kD), 1e-9);
  EXPECT_NEAR(curve[0].utilization, kD / (kZ + kC + kD), 1e-12);
  EXPECT_NEAR(curve[0].response_s, kC + kD, 1e-12);
}

TEST(SaturationMva, ExponentialTimesAreExactMvaByHand) {
  // k = 2, cv = 1: R_srv(2) = D (1 + Q(1)), Q(1) = D / (Z + c + D); X(2) = 2 / (Z + c + R_srv(2)).
  const double q1 = kD / (kZ + kC + kD);
  const double x2 = 2.0 / (kZ + kC + kD * (1.0 + q1));
  const auto curve = predict_saturation_mva(inputs(), {1, 2}, TimeDistribution::kExponential);
  EXPECT_NEAR(curve[1].updates_per_s, x2, 1e-9 * x2);
}

TEST(SaturationMva, FixedServiceWaitsHalfTheServiceInProgress) {
  // k = 2, cv = 0: the customer in service (probability U(1)) has D / 2 left: R_srv(2) = D (1 + Q(1) - U(1) / 2),
  // and at k = 1 Q(1) = U(1) = D / (Z + c + D).
  const double u1 = kD / (kZ + kC + kD);
  const double x2 = 2.0 / (kZ + kC + kD * (1.0 + u1 - 0.5 * u1));
  const auto curve = predict_saturation_mva(inputs(), {2}, TimeDistribution::kCalibrated);
  EXPECT_NEAR(curve[0].updates_per_s, x2, 1e-9 * x2);
}

TEST(SaturationMva, ManyClientsSaturateAtOneOverTheShardTime) {
  // Two servers, each serving every full push's shard in D = D_full / S: X -> 1 / D = S / D_full.
  const double d_full = 2.0 * kD;
  const auto curve = predict_saturation_mva(inputs(2), {64}, TimeDistribution::kExponential);
  EXPECT_NEAR(curve[0].updates_per_s, 2.0 / d_full, 1e-3 * 2.0 / d_full);
  EXPECT_NEAR(curve[0].utilization, 1.0, 1e-3);
  // Little's law at the clients: k = X (Z + c + R_srv), the response being c + R_srv.
  EXPECT_NEAR(64.0, curve[0].updates_per_s * (kZ + curve[0].response_s), 1e-6);
}

TEST(SaturationMva, FixedServiceNeverPassesTheBound) {
  std::vector<int> clients;
  for (int k = 1; k <= 16; ++k) clients.push_back(k);
  const auto curve = predict_saturation_mva(inputs(1, 64, 0.0), clients, TimeDistribution::kCalibrated);
  for (const auto& p : curve) {
    EXPECT_LE(p.updates_per_s, (1.0 + 1e-12) / kD) << "k = " << p.clients;
    EXPECT_LE(p.updates_per_s, p.clients / (kZ + kC + kD) * (1.0 + 1e-12)) << "k = " << p.clients;
  }
  EXPECT_NEAR(curve.back().updates_per_s, 1.0 / kD, 1e-9 / kD);
}

TEST(SaturationMva, SharedCoresStretchTheServersByTheClientsCpu) {
  SaturationInputs in = inputs(2, 2);
  in.client_cpu_s = 0.5 * kC;
  EXPECT_FALSE(saturation_cores_shared(inputs(1, 64), 16));
  EXPECT_TRUE(saturation_cores_shared(in, 1));
  // At X = 4,000/s the clients take X c_cpu = 0.2 of the 2 cores: the 2 servers share 1.8 of them.
  EXPECT_NEAR(server_stretch(in, 4000.0), 2.0 / 1.8, 1e-12);
  EXPECT_DOUBLE_EQ(server_stretch(inputs(1, 2), 4000.0), 1.0) << "one server still has a core of its own";
  const ClosedNetwork network = saturation_network(in, 1.5, TimeDistribution::kCalibrated);
  ASSERT_EQ(network.stations.size(), 1U);
  EXPECT_DOUBLE_EQ(network.think, kZ + kC) << "the client's overhead is a delay: it runs first";
  EXPECT_DOUBLE_EQ(network.stations[0].demand, 1.5 * kD);
  // Saturated, X = 1 / (D s) with s = S / (m - X c_cpu), so X S D = m - X c_cpu and X = m / (S D + c_cpu):
  // 2 / (2 ms + 0.05 ms).
  const auto curve = predict_saturation_mva(in, {256}, TimeDistribution::kCalibrated);
  EXPECT_NEAR(curve[0].updates_per_s, 2.0 / (2.0 * kD + 0.5 * kC), 1e-3 * 2.0 / (2.0 * kD));
}

TEST(SaturationKnee, FirstClientCountWithinTenPercentOfThePlateau) {
  // Plateau: the median of the largest third (k = 5, 6): 300; 0.9 x 300 = 270 is first reached at k = 3.
  EXPECT_EQ(saturation_knee({1, 2, 3, 4, 5, 6}, {100, 200, 290, 300, 300, 300}), 3);
  EXPECT_EQ(saturation_knee({1, 2, 3}, {100, 200, 300}), 3);
  EXPECT_NEAR(saturation_knee_bound(inputs()), (kZ + kC + kD) / kD, 1e-12);
}

TEST(SaturationSim, AgreesWithExactMvaWithExponentialTimes) {
  const std::vector<int> clients = {1, 2, 3, 4, 8};
  const auto mva = predict_saturation_mva(inputs(), clients, TimeDistribution::kExponential);
  const auto sim = simulate_saturation(inputs(), clients, {TimeDistribution::kExponential, 7, 10000.0});
  ASSERT_EQ(sim.size(), clients.size());
  for (std::size_t i = 0; i < clients.size(); ++i) {
    EXPECT_NEAR(sim[i].updates_per_s / mva[i].updates_per_s, 1.0, 0.05) << "k = " << clients[i];
    EXPECT_NEAR(sim[i].utilization / mva[i].utilization, 1.0, 0.05) << "k = " << clients[i];
    EXPECT_NEAR(sim[i].response_s / mva[i].response_s, 1.0, 0.05) << "k = " << clients[i];
  }
}

TEST(SaturationSim, FixedTimesCycleExactlyAtOneClientAndStopAtTheBound) {
  const auto sim = simulate_saturation(inputs(), {1, 16}, {TimeDistribution::kCalibrated, 1, 2000.0});
  EXPECT_NEAR(sim[0].updates_per_s * (kZ + kC + kD), 1.0, 0.01);
  EXPECT_NEAR(sim[1].updates_per_s * kD, 1.0, 0.01);
  EXPECT_NEAR(sim[1].utilization, 1.0, 0.01);
}

TEST(SaturationInputsFromFile, TakesTheClientOverheadAtOneClient) {
  const SaturationInputs in = saturation_inputs(measured_run(), 2);
  EXPECT_DOUBLE_EQ(in.think_s, 2000e-6);
  EXPECT_DOUBLE_EQ(in.service_s, 1000e-6);
  EXPECT_NEAR(in.overhead_s, 100e-6, 1e-12);
  EXPECT_EQ(in.cores, 2);
}

TEST(SaturationInputsFromFile, TakesTheBusyServiceAsDAndTheOneClientServiceAsIdle) {
  results::SaturationRun run = measured_run();
  EXPECT_FALSE(saturation_inputs(run, 2).idle_service_s) << "an older file: one D for both";
  run.service_busy_us = 800.0;
  const SaturationInputs in = saturation_inputs(run, 2);
  EXPECT_DOUBLE_EQ(in.service_s, 800e-6);
  ASSERT_TRUE(in.idle_service_s);
  EXPECT_DOUBLE_EQ(*in.idle_service_s, 1000e-6);
  EXPECT_NEAR(in.overhead_s, 100e-6, 1e-12) << "k = 1's response less the D it was served in";
  run.service_busy_us = 0.0;
  EXPECT_THROW(saturation_inputs(run, 2), UserError);
}

// Two servers probed by 16 busy clients at 4,000 updates/s, 1,200 us each by the server's clock, on 2 cores.
results::SaturationRun shared_core_probe_run() {
  results::SaturationRun run = measured_run();
  run.servers = 2;
  run.client_cpu_us = 50.0;
  run.service_busy_us = 1200.0;
  run.busy_clients = 16;
  run.busy_updates_per_s = 4000.0;
  return run;
}

TEST(SaturationInputsFromFile, TakesABusyProbeOnSharedCoresWithoutItsStretch) {
  results::SaturationRun run = shared_core_probe_run();
  // The probe's 16 clients took X c_cpu = 0.2 of the 2 cores; its 2 servers shared 1.8: stretch 2 / 1.8.
  EXPECT_NEAR(saturation_inputs(run, 2).service_s, 1200e-6 / (2.0 / 1.8), 1e-12);
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 2, false).service_s, 1200e-6) << "--cpu off: no stretch to take out";
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 64).service_s, 1200e-6) << "a core for every rank of the probe";
  run.busy_clients = 1;
  EXPECT_NEAR(saturation_inputs(run, 2).service_s, 1200e-6 / (2.0 / 1.8), 1e-12) << "2 servers + 1 client > 2";
  run.servers = 1;
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 4).service_s, 1200e-6) << "1 server + 1 client on 4 cores";
  run.busy_clients = 0;
  EXPECT_THROW(saturation_inputs(run, 2), UserError);
}

TEST(SaturationInputsFromFile, TakesTheServersMeasuredCpuAsDOnSharedCores) {
  results::SaturationRun run = shared_core_probe_run();
  run.server_cpu_busy_us = 900.0;  // what each update took of a core, where the clock saw 1,200 us
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 2).service_s, 900e-6) << "measured, not derived from a stretch";
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 64).service_s, 1200e-6) << "a core for every rank: the clock's D";
  run.server_cpu_busy_us = 0.0;
  EXPECT_THROW(saturation_inputs(run, 2), UserError);
}

TEST(SaturationInputsFromFile, TakesThePreemptionBeyondProcessorSharingFromTheProbe) {
  results::SaturationRun run = shared_core_probe_run();
  run.server_cpu_busy_us = 900.0;  // the clock saw 1,200 us: 4/3, where sharing 1.8 cores explains 2 / 1.8
  const SaturationInputs in = saturation_inputs(run, 2);
  EXPECT_NEAR(in.preemption, (1200.0 / 900.0) / (2.0 / 1.8) - 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(in.preemption_updates_per_s, 4000.0);
  EXPECT_NEAR(server_stretch(in, 4000.0), 1200.0 / 900.0, 1e-12) << "at the probe's throughput, its own stretch";
  // Half the wake-ups: half the preemption; the clients' 2,000 x 50 us leave the servers 1.9 cores.
  EXPECT_NEAR(server_stretch(in, 2000.0), (2.0 / 1.9) * (1.0 + 0.5 * in.preemption), 1e-12);
  run.server_cpu_busy_us = 1200.0 / (2.0 / 1.8);  // the sharing alone explains the clock
  EXPECT_NEAR(saturation_inputs(run, 2).preemption, 0.0, 1e-12);
  run.server_cpu_busy_us = 1300.0;  // a clock under the formula's stretch is not a negative preemption
  EXPECT_DOUBLE_EQ(saturation_inputs(run, 2).preemption, 0.0);
}

TEST(SaturationMva, PreemptionStretchesTheServerWithTheThroughput) {
  SaturationInputs in = inputs(1, 2);
  in.preemption = 0.2;
  in.preemption_updates_per_s = 1.0 / kD;
  // Saturated, X D (1 + 0.2 X D) = 1: X D = (sqrt(1 + 0.8) - 1) / 0.4.
  const double bound = (std::sqrt(1.8) - 1.0) / 0.4 / kD;
  const auto mva = predict_saturation_mva(in, {256}, TimeDistribution::kCalibrated);
  EXPECT_NEAR(mva[0].updates_per_s, bound, 1e-3 * bound);
  const auto sim = simulate_saturation(in, {16}, {TimeDistribution::kCalibrated, 1, 4000.0});
  EXPECT_NEAR(sim[0].updates_per_s / bound, 1.0, 0.03);
}

TEST(SaturationMva, OneClientIsServedInTheIdleTimeAndManyAtTheBusyOne) {
  SaturationInputs in = inputs();
  in.idle_service_s = 1.5 * kD;
  const auto mva = predict_saturation_mva(in, {1, 64}, TimeDistribution::kCalibrated);
  EXPECT_NEAR(mva[0].updates_per_s, 1.0 / (kZ + kC + 1.5 * kD), 1e-9);
  EXPECT_NEAR(mva[1].updates_per_s, 1.0 / kD, 1e-3 / kD);
  EXPECT_NEAR(saturation_knee_bound(in), (kZ + kC + 1.5 * kD) / kD, 1e-12);
  const auto sim = simulate_saturation(in, {1, 16}, {TimeDistribution::kCalibrated, 1, 2000.0});
  EXPECT_NEAR(sim[0].updates_per_s * (kZ + kC + 1.5 * kD), 1.0, 0.01);
  EXPECT_NEAR(sim[1].updates_per_s * kD, 1.0, 0.01);
}

TEST(SaturationInputsFromFile, TakesTheClientsCpuWhereMeasuredElseTheWholeOverhead) {
  results::SaturationRun run = measured_run();
  run.servers = 2;
  EXPECT_NEAR(saturation_inputs(run, 2).client_cpu_s, 100e-6, 1e-12) << "no figure: c counts as CPU";
  run.client_cpu_us = 30.0;
  const SaturationInputs in = saturation_inputs(run, 2);
  EXPECT_NEAR(in.client_cpu_s, 30e-6, 1e-12);
  EXPECT_NEAR(in.overhead_s, 100e-6, 1e-12) << "the overhead is what the client waited, CPU or not";
  EXPECT_FALSE(saturation_cores_shared(saturation_inputs(run, 2, false), 16));
}

TEST(SaturationInputsFromFile, RefusesARunItCannotTake) {
  results::SaturationRun run = measured_run();
  run.points.erase(run.points.begin());
  EXPECT_THROW(
      {
        try {
          saturation_inputs(run, 2);
        } catch (const UserError& error) {
          EXPECT_NE(std::string(error.what()).find("has no k = 1 point"), std::string::npos) << error.what();
          throw;
        }
      },
      UserError);
  run = measured_run();
  run.service_us = 0.0;
  EXPECT_THROW(saturation_inputs(run, 2), UserError);
  EXPECT_THROW(saturation_inputs(measured_run(), 0), UserError);
}

TEST(SaturationCompare, ComparesEveryRunAndRefusesBadRequests) {
  results::SaturationFile file;
  file.context.cores = 64;
  file.runs = {measured_run()};
  SaturationRequest request;
  request.kinds = {Kind::kMva};
  const auto comparisons = compare_saturation(file, request);
  ASSERT_EQ(comparisons.size(), 1U);
  const SaturationCurve& curve = comparisons[0].curves.at(0);
  ASSERT_EQ(curve.points.size(), 3U);
  double sum = 0.0;
  for (const auto& p : curve.points) {
    const double measured = measured_rate(file.runs[0], p.clients).value();
    sum += std::abs(p.updates_per_s - measured) / measured;
  }
  EXPECT_NEAR(curve.mape_percent.value(), 100.0 * sum / 3.0, 1e-9);
  EXPECT_EQ(comparisons[0].measured_knee, 3);
  request.clients = {0};
  EXPECT_THROW(compare_saturation(file, request), UserError);
  request.clients = {};
  request.kinds = {Kind::kRevised};
  EXPECT_THROW(compare_saturation(file, request), UserError);
  file.runs.clear();
  request.kinds = {Kind::kMva};
  EXPECT_THROW(compare_saturation(file, request), UserError);
}

TEST(SaturationCompare, DemandDriftIsThePointsOwnDOverTheModels) {
  results::SaturationRun run = measured_run();  // D = 1,000 us, c = 100 us, Z = 2,000 us, a core for every rank
  const SaturationInputs in = saturation_inputs(run, 64);
  EXPECT_FALSE(demand_drift(run, in, TimeDistribution::kCalibrated)) << "no point carries its own D";
  run.points[0].service_us = 2000.0;
  run.points[1].service_us = 1000.0;
  run.points[2].service_us = 1500.0;
  run.points[0].updates_per_s = 1.0 / (kZ + kC + 2.0 * kD);  // one client, served in its point's own 2 ms
  const std::optional<DemandDrift> drift = demand_drift(run, in, TimeDistribution::kCalibrated);
  ASSERT_TRUE(drift);
  EXPECT_DOUBLE_EQ(drift->low, 1.0);
  EXPECT_DOUBLE_EQ(drift->high, 2.0);
  SaturationInputs slower = in;  // k = 3's own D, after idling too
  slower.service_s = 1.5 * kD;
  slower.idle_service_s = 1.5 * kD;
  const double three = predict_saturation_mva(slower, {3}, TimeDistribution::kCalibrated).front().updates_per_s;
  const double two = predict_saturation_mva(in, {2}, TimeDistribution::kCalibrated).front().updates_per_s;
  const double expected = 100.0 * (std::abs(two - 600.0) / 600.0 + std::abs(three - 900.0) / 900.0) / 3.0;
  EXPECT_NEAR(drift->mva_mape_percent, expected, 1e-9) << "k = 1 is exact given its own D";
  EXPECT_GE(two, 0.9 * three) << "the plateau is k = 3's rate, and k = 2 is within 10% of it";
  EXPECT_EQ(drift->mva_knee_clients, 2);
  run.points[2].service_us.reset();
  EXPECT_FALSE(demand_drift(run, in, TimeDistribution::kCalibrated)) << "one point without its D";
}

TEST(SaturationCompare, DemandDriftTakesTheServersCpuWhereDIsACoresWork) {
  results::SaturationRun run = shared_core_probe_run();
  run.server_cpu_busy_us = 800.0;
  for (auto& point : run.points) {
    point.service_us = 1200.0;  // the clock, stretched on the shared cores
    point.server_cpu_us = 1000.0;
  }
  const SaturationInputs in = saturation_inputs(run, 2);
  ASSERT_TRUE(in.service_per_core);
  const std::optional<DemandDrift> drift = demand_drift(run, in, TimeDistribution::kCalibrated);
  ASSERT_TRUE(drift);
  EXPECT_DOUBLE_EQ(drift->low, 1.25);
  EXPECT_DOUBLE_EQ(drift->high, 1.25);
  const SaturationInputs unshared = saturation_inputs(run, 64);
  ASSERT_FALSE(unshared.service_per_core);
  EXPECT_DOUBLE_EQ(demand_drift(run, unshared, TimeDistribution::kCalibrated)->high, 1.0) << "1,200 over 1,200";
  run.server_cpu_busy_us.reset();  // D = 1,200 us over the probe's stretch 2 / 1.8: 1,080 us of a core
  const SaturationInputs derived = saturation_inputs(run, 2);
  ASSERT_TRUE(derived.service_per_core);
  EXPECT_NEAR(demand_drift(run, derived, TimeDistribution::kCalibrated)->high, 1000.0 / 1080.0, 1e-12)
      << "the points' CPU, not their stretched clock";
}

}  // namespace
}  // namespace psbench::perf
