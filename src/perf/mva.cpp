#include "perf/mva.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

// Per-station state carried from population n - 1 to n.
struct StationState {
  double queue = 0.0;
  double utilization = 0.0;      // U_k(n-1), for a queue with general service times
  std::vector<double> marginal;  // p_k(j | n-1) for j = 0..m-2 (multi-server stations only)
  std::vector<double> next;      // p_k(j | n) while it is computed (kept to allocate nothing per population)
};

// The mean service of a single queue's arriving customer: D if it finds the server busy (U(n-1)), else D_0.
double own_service(const Station& station, const StationState& state) {
  if (!station.idle_demand) return station.demand;
  return state.utilization * station.demand + (1.0 - state.utilization) * *station.idle_demand;
}

double residence_time(const Station& station, const StationState& state) {
  if (station.servers == 0) return station.demand;
  if (station.servers == 1 && station.service_cv == 1.0 && !station.idle_demand)
    return station.demand * (1.0 + state.queue);
  if (station.servers == 1) {
    const double residual = 0.5 * (1.0 + station.service_cv * station.service_cv);
    return own_service(station, state) +
           station.demand * (state.queue - state.utilization + state.utilization * residual);
  }
  const int m = station.servers;
  double correction = 0.0;
  for (int j = 0; j <= m - 2; ++j) correction += static_cast<double>(m - j - 1) * state.marginal[j];
  return station.demand / m * (1.0 + state.queue + correction);
}

// p(j|n) = D X p(j-1|n-1) / j for j = 1..m-1; p(0|n) from normalisation. Only j <= m-2 is kept for the
// next residence time; p(m-1|n) enters the normalisation. Load-dependent MVA can go negative through
// cancellation (MODEL-FACTS.md): clamp at zero.
void update_marginals(const Station& station, double throughput, StationState& state) {
  const int m = station.servers;
  const double load = station.demand * throughput;
  std::vector<double>& next = state.next;
  next.assign(static_cast<std::size_t>(m - 1), 0.0);
  double weighted = load;
  for (int j = 1; j <= m - 1; ++j) {
    const double p = load * state.marginal[j - 1] / j;
    weighted += static_cast<double>(m - j) * p;
    if (j <= m - 2) next[j] = p;
  }
  next[0] = std::max(0.0, 1.0 - weighted / m);
  state.marginal.swap(next);
}

double total_demand(const ClosedNetwork& network) {
  double total = 0.0;
  for (const Station& station : network.stations) total += station.demand;
  return total;
}

double max_demand_per_server(const ClosedNetwork& network) {
  double largest = 0.0;
  for (const Station& station : network.stations) {
    if (station.servers == 0) continue;
    largest = std::max(largest, station.demand / station.servers);
  }
  return largest;
}

bool has_general_service(const ClosedNetwork& network) {
  for (const Station& station : network.stations) {
    if (station.servers == 1 && (station.service_cv != 1.0 || station.idle_demand)) return true;
  }
  return false;
}

// Approximate MVA can pass the asymptotic bound 1 / D_max near saturation: hold X there and scale the
// residence times so that Little's law still holds (n = X (Z + R)).
void hold_to_bound(const ClosedNetwork& network, double n, MvaPoint& point) {
  const double d_max = max_demand_per_server(network);
  if (d_max <= 0.0 || point.throughput <= 1.0 / d_max) return;
  point.throughput = 1.0 / d_max;
  const double response = n * d_max - network.think;
  const double scale = point.response > 0.0 ? response / point.response : 0.0;
  for (double& r : point.residence) r *= scale;
  point.response = response;
}

void check_network(const ClosedNetwork& network, std::size_t customers) {
  if (customers < 1) throw UserError("MVA needs at least one customer (worker count 0)");
  if (network.think < 0.0) throw UserError("MVA think time is negative: " + std::to_string(network.think));
  for (const Station& station : network.stations) {
    if (station.demand < 0.0 || station.servers < 0 || station.service_cv < 0.0 ||
        station.idle_demand.value_or(0.0) < 0.0)
      throw UserError("MVA station has a negative demand, server count or coefficient of variation");
  }
}

// The recursion from population 1 to customers, visit(point) after each population; the point's buffers are reused.
template <typename Visit>
void recurse(const ClosedNetwork& network, std::size_t customers, Visit&& visit) {
  check_network(network, customers);
  const std::size_t k_count = network.stations.size();
  std::vector<StationState> states(k_count);
  for (std::size_t k = 0; k < k_count; ++k) {
    const int m = network.stations[k].servers;
    if (m > 1) {
      states[k].marginal.assign(static_cast<std::size_t>(m - 1), 0.0);
      states[k].marginal[0] = 1.0;  // p(0 | 0) = 1
    }
  }
  const bool general = has_general_service(network);
  MvaPoint point;
  point.residence.resize(k_count);
  point.queue_length.resize(k_count);
  point.utilization.resize(k_count);
  for (std::size_t n = 1; n <= customers; ++n) {
    point.response = 0.0;
    for (std::size_t k = 0; k < k_count; ++k) point.residence[k] = residence_time(network.stations[k], states[k]);
    for (const double r : point.residence) point.response += r;
    point.throughput = static_cast<double>(n) / (network.think + point.response);
    if (general) hold_to_bound(network, static_cast<double>(n), point);
    for (std::size_t k = 0; k < k_count; ++k) {
      const Station& station = network.stations[k];
      point.queue_length[k] = point.throughput * point.residence[k];
      if (station.servers == 1) {  // with an idle demand, X(n) held to 1 / D can meet a longer mean service
        point.utilization[k] = std::min(1.0, point.throughput * own_service(station, states[k]));
      } else {
        point.utilization[k] = point.throughput * station.demand / std::max(1, station.servers);
      }
      states[k].queue = point.queue_length[k];
      states[k].utilization = point.utilization[k];
      if (station.servers > 1) update_marginals(station, point.throughput, states[k]);
    }
    visit(point);
  }
}

}  // namespace

std::vector<MvaPoint> solve_mva(const ClosedNetwork& network, std::size_t customers) {
  std::vector<MvaPoint> points;
  points.reserve(customers);
  recurse(network, customers, [&](const MvaPoint& point) { points.push_back(point); });
  return points;
}

MvaPoint solve_mva_last(const ClosedNetwork& network, std::size_t customers) {
  MvaPoint last;
  std::size_t n = 0;
  recurse(network, customers, [&](const MvaPoint& point) {
    if (++n == customers) last = point;
  });
  return last;
}

AsymptoticBounds asymptotic_bounds(const ClosedNetwork& network, double n) {
  const double demand = total_demand(network);
  const double d_max = max_demand_per_server(network);
  AsymptoticBounds bounds;
  const double light = n / (demand + network.think);
  bounds.throughput_upper = d_max > 0.0 ? std::min(light, 1.0 / d_max) : light;
  bounds.response_lower = std::max(demand, n * d_max - network.think);
  return bounds;
}

double knee_population(const ClosedNetwork& network) {
  const double d_max = max_demand_per_server(network);
  if (d_max <= 0.0) return 0.0;
  return (total_demand(network) + network.think) / d_max;
}

}  // namespace psbench::perf
