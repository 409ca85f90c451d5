#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace psbench::perf {

/// One queueing station of a closed network: a single FCFS server (servers = 1), a multi-server
/// station with `servers` identical servers (a node's cores), or a pure delay (servers = 0).
struct Station {
  double demand = 0.0;      ///< D_k: service demand per cycle (visits x service time), seconds
  int servers = 1;          ///< m_k: 1 for a queue, m > 1 for a multi-server station, 0 for a delay
  double service_cv = 1.0;  ///< coefficient of variation of a single queue's service time (1: exponential)
  /// A single queue's mean service time for a customer that finds it idle (a server woken from sleep, its
  /// caches cold), where that differs from demand, the time when it is kept busy.
  std::optional<double> idle_demand{};
};

/// A single-class closed network: N customers cycle through a think time Z and the stations.
struct ClosedNetwork {
  double think = 0.0;             ///< Z: delay per cycle outside the stations, seconds
  std::vector<Station> stations;  ///< the queueing stations
};

/// Exact MVA results at one population n.
struct MvaPoint {
  double throughput = 0.0;           ///< X(n): cycles per second
  double response = 0.0;             ///< R(n): sum of the stations' residence times, seconds
  std::vector<double> residence;     ///< R_k(n)
  std::vector<double> queue_length;  ///< Q_k(n), customers at station k (waiting and in service)
  std::vector<double> utilization;   ///< U_k(n) = X(n) D_k / m_k, busy share of one server of k
};

/// Solves the network by exact mean value analysis for n = 1..customers (Reiser and Lavenberg 1980; the
/// multi-server recursion of Bolch et al., Queueing Networks and Markov Chains, sec. 8.2). Entry i holds
/// population i + 1. Cost O(customers x sum of m_k). A single queue whose service_cv is not 1 is no longer
/// product form: its arriving customer finds the one in service with probability U(n-1) and waits its mean
/// residual D (1 + cv^2) / 2 instead of D (the residual-life approximation of approximate MVA for FCFS
/// stations with general service; exact MVA when every cv is 1), and X(n) is held to 1 / D_max. A queue with
/// an idle_demand D_0 serves its arriving customer in U(n-1) D + (1 - U(n-1)) D_0 (it finds the server busy
/// with probability U(n-1)); those ahead of it take D, and U(n) is X(n) times that mean service.
/// Throws UserError for customers < 1, a negative demand or a negative cv.
std::vector<MvaPoint> solve_mva(const ClosedNetwork& network, std::size_t customers);

/// The last point of solve_mva(network, customers) alone: the same recursion, without keeping every population's
/// point (what a solve at one W needs).
MvaPoint solve_mva_last(const ClosedNetwork& network, std::size_t customers);

/// Asymptotic bounds at population n: X(n) <= min(n / (D + Z), 1 / D_max), R(n) >= max(D, n D_max - Z),
/// with D_max the largest demand per server (D_k / m_k).
struct AsymptoticBounds {
  double throughput_upper = 0.0;  ///< upper bound on X(n)
  double response_lower = 0.0;    ///< lower bound on R(n)
};

/// The asymptotic bounds of the network at population n.
AsymptoticBounds asymptotic_bounds(const ClosedNetwork& network, double n);

/// N* = (D + Z) / D_max: the population where the two throughput bounds cross (the knee).
double knee_population(const ClosedNetwork& network);

}  // namespace psbench::perf
