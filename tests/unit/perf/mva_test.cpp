// Exact MVA against a textbook example, a birth-death chain, its limits and its asymptotic bounds.
#include "perf/mva.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

// Jain, The Art of Computer Systems Performance Analysis (Wiley 1991), p. 577, example 34.2 (a timesharing
// system: CPU and two disks; also a unit test of GNU Octave's queueing package, qncsmva.m): service times
// S = [0.125 0.3 0.2] s, visits V = [16 10 5], N = 20 users, think time Z = 4 s. Published: per-visit
// response R = [0.373 4.854 0.300] s, queue lengths Q = [1.991 16.177 0.500], throughput X = 0.3332/s.
TEST(Mva, MatchesJainPage577) {
  const std::vector<double> service = {0.125, 0.3, 0.2};
  const std::vector<double> visits = {16, 10, 5};
  ClosedNetwork network;
  network.think = 4.0;
  for (std::size_t k = 0; k < 3; ++k) network.stations.push_back({service[k] * visits[k], 1});
  const MvaPoint point = solve_mva(network, 20).back();
  EXPECT_NEAR(point.throughput, 0.3332, 5e-4);
  const std::vector<double> per_visit = {0.373, 4.854, 0.300};
  const std::vector<double> queue = {1.991, 16.177, 0.500};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(point.residence[k] / visits[k], per_visit[k], 2e-3) << "station " << k;
    EXPECT_NEAR(point.queue_length[k], queue[k], 2e-3) << "station " << k;
  }
}

TEST(Mva, OneCustomerSeesNoQueue) {
  const ClosedNetwork network{0.010, {{0.002, 1}, {0.003, 1}}};
  const MvaPoint point = solve_mva(network, 1).front();
  EXPECT_DOUBLE_EQ(point.throughput, 1.0 / 0.015);
  EXPECT_DOUBLE_EQ(point.response, 0.005);
}

TEST(Mva, ThroughputTendsToOneOverTheLargestDemand) {
  const ClosedNetwork network{0.010, {{0.002, 1}, {0.003, 1}}};
  const auto curve = solve_mva(network, 400);
  EXPECT_NEAR(curve.back().throughput, 1.0 / 0.003, 1e-6 / 0.003);
  EXPECT_NEAR(curve.back().utilization[1], 1.0, 1e-6);
}

TEST(Mva, AsymptoticBoundsHoldAtEveryPopulation) {
  const std::vector<ClosedNetwork> networks = {{0.010, {{0.002, 1}, {0.003, 1}}},
                                               {4.0, {{2.0, 1}, {3.0, 1}, {1.0, 1}}},
                                               {0.0, {{1.0, 1}}},
                                               {0.05, {{0.02, 2}, {0.004, 1}}}};
  for (const ClosedNetwork& network : networks) {
    const auto curve = solve_mva(network, 200);
    for (std::size_t i = 0; i < curve.size(); ++i) {
      const double n = static_cast<double>(i + 1);
      const AsymptoticBounds bounds = asymptotic_bounds(network, n);
      EXPECT_LE(curve[i].throughput, bounds.throughput_upper * (1 + 1e-12)) << "n = " << n;
      EXPECT_GE(curve[i].response, bounds.response_lower * (1 - 1e-12)) << "n = " << n;
    }
  }
}

TEST(Mva, KneeIsWhereTheBoundsCross) {
  const ClosedNetwork network{0.010, {{0.002, 1}, {0.003, 1}}};
  EXPECT_DOUBLE_EQ(knee_population(network), 0.015 / 0.003);
}

// Machine repairman with m repairmen: N machines fail after an exponential time of mean Z, m repairmen of
// mean time D each. Its birth-death chain is the exact answer the multi-server recursion must reproduce.
double repairman_throughput(int n, double think, double demand, int m) {
  std::vector<double> p(static_cast<std::size_t>(n) + 1, 0.0);
  p[0] = 1.0;
  for (int j = 1; j <= n; ++j) {
    const double up = (n - j + 1) / think;
    const double down = std::min(j, m) / demand;
    p[static_cast<std::size_t>(j)] = p[static_cast<std::size_t>(j) - 1] * up / down;
  }
  double total = 0.0;
  for (const double v : p) total += v;
  double throughput = 0.0;
  for (int j = 0; j <= n; ++j) throughput += p[static_cast<std::size_t>(j)] / total * std::min(j, m) / demand;
  return throughput;
}

TEST(Mva, MultiServerStationMatchesItsBirthDeathChain) {
  for (const int m : {2, 3, 8}) {
    const ClosedNetwork network{0.5, {{1.0, m}}};
    const auto curve = solve_mva(network, 30);
    for (int n = 1; n <= 30; ++n) {
      EXPECT_NEAR(curve[static_cast<std::size_t>(n) - 1].throughput, repairman_throughput(n, 0.5, 1.0, m), 1e-9)
          << "m = " << m << ", n = " << n;
    }
  }
}

TEST(Mva, AnIdleDemandServesWhoFindsTheQueueIdle) {
  // D = 1 ms kept busy, D_0 = 1.5 ms after idling, Z = 2 ms, exponential. n = 1 finds the queue idle:
  // R(1) = D_0. n = 2: the arrival finds it busy with probability U(1) = X(1) D_0: its own service is
  // U(1) D + (1 - U(1)) D_0, and the Q(1) ahead take D each (their mean residual is D at cv 1).
  ClosedNetwork network{0.002, {{0.001, 1}}};
  network.stations[0].idle_demand = 0.0015;
  const auto curve = solve_mva(network, 200);
  const double x1 = 1.0 / (0.002 + 0.0015);
  EXPECT_NEAR(curve[0].throughput, x1, 1e-9 * x1);
  EXPECT_NEAR(curve[0].utilization[0], x1 * 0.0015, 1e-12);
  const double u1 = x1 * 0.0015;
  const double q1 = u1;  // one customer: Q(1) = X(1) R(1) = U(1)
  const double r2 = u1 * 0.001 + (1.0 - u1) * 0.0015 + 0.001 * q1;
  EXPECT_NEAR(curve[1].throughput, 2.0 / (0.002 + r2), 1e-9 * 2.0 / (0.002 + r2));
  // Kept busy by many customers, the queue serves at 1 / D, and never faster.
  EXPECT_NEAR(curve.back().throughput, 1.0 / 0.001, 1e-3 / 0.001);
  for (const auto& point : curve) EXPECT_LE(point.utilization[0], 1.0);
  // Without an idle demand nothing changes.
  EXPECT_NEAR(solve_mva({0.002, {{0.001, 1}}}, 1)[0].throughput, 1.0 / 0.003, 1e-9);
}

TEST(Mva, RefusesNoCustomers) {
  const ClosedNetwork network{0.010, {{0.002, 1}}};
  EXPECT_THROW(solve_mva(network, 0), UserError);
}

}  // namespace
}  // namespace psbench::perf
