#include "perf/saturation_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

constexpr int kFixedPointRounds = 30;
constexpr double kFixedPointTolerance = 1e-6;
constexpr double kMinFreeCores = 0.25;  // the servers never take all the clients' cores
constexpr double kKneeShare = 0.9;      // the benchmark's knee: within 10% of the plateau

// m / (m - S U): how much slower a client's overhead runs with the servers' busy cores taken from the m cores.
double cpu_inflation(double cores, int servers, double utilization) {
  return cores / std::max(kMinFreeCores, cores - servers * utilization);
}

std::string run_name(const results::SaturationRun& run) {
  return "server_saturation run S = " + std::to_string(run.servers) + ", P = " + std::to_string(run.parameters);
}

SaturationPrediction from_point(const SaturationInputs& inputs, int clients, bool shared, const MvaPoint& point) {
  SaturationPrediction p;
  p.clients = clients;
  p.updates_per_s = point.throughput;
  p.utilization = point.utilization.front();
  p.response_s = point.residence.front() + (shared ? point.residence[1] : inputs.overhead_s);
  p.queue_length = p.updates_per_s * p.response_s;
  return p;
}

// k clients with the servers' busy cores taken from theirs: inflation = m / (m - S U), iterated to a fixed point.
SaturationPrediction solve_shared(const SaturationInputs& inputs, int clients, TimeDistribution times) {
  const double cores = inputs.cores;
  double inflation = 1.0;
  for (int round = 0;; ++round) {
    const ClosedNetwork network = saturation_network(inputs, clients, inflation, times);
    const MvaPoint point = solve_mva(network, static_cast<std::size_t>(clients)).back();
    const double next = cpu_inflation(cores, inputs.servers, point.utilization.front());
    if (std::abs(next - inflation) < kFixedPointTolerance || round + 1 == kFixedPointRounds)
      return from_point(inputs, clients, true, point);
    inflation = next;
  }
}

}  // namespace

SaturationInputs saturation_inputs(const results::SaturationRun& run, int cores, bool cpu_station) {
  const auto first = std::find_if(run.points.begin(), run.points.end(),
                                  [](const results::SaturationPoint& p) { return p.clients == 1; });
  if (first == run.points.end())
    throw UserError(run_name(run) + " has no k = 1 point: the model takes D and the client's overhead from it");
  if (!(run.service_us > 0.0)) throw UserError(run_name(run) + " has service_us " + std::to_string(run.service_us));
  if (!(run.think_us >= 0.0)) throw UserError(run_name(run) + " has think_us " + std::to_string(run.think_us));
  if (run.servers < 1) throw UserError(run_name(run) + " has no server");
  if (cores < 1) throw UserError("server_saturation context has cores " + std::to_string(cores) + ", below 1");
  SaturationInputs inputs;
  inputs.servers = run.servers;
  inputs.parameters = run.parameters;
  inputs.think_s = 1e-6 * run.think_measured_us.value_or(run.think_us);  // what the clients slept
  inputs.service_s = 1e-6 * run.service_us;
  inputs.service_cv = std::max(0.0, run.service_cv);
  inputs.overhead_s = 1e-6 * std::max(0.0, first->response_us - run.service_us);
  inputs.cores = cores;
  inputs.cpu_station = cpu_station;
  if (saturation_cores_shared(inputs, 1)) inputs.overhead_s /= cpu_inflation(cores, run.servers, first->utilization);
  return inputs;
}

bool saturation_cores_shared(const SaturationInputs& inputs, int clients) {
  return inputs.cpu_station && inputs.servers + clients > inputs.cores;
}

ClosedNetwork saturation_network(const SaturationInputs& inputs, int clients, double cpu_inflation,
                                 TimeDistribution times) {
  const bool shared = saturation_cores_shared(inputs, clients);
  ClosedNetwork network;
  network.think = inputs.think_s + (shared ? 0.0 : inputs.overhead_s);
  const double cv = times == TimeDistribution::kExponential ? 1.0 : inputs.service_cv;
  network.stations.push_back({inputs.service_s, 1, cv});
  if (shared) network.stations.push_back({inputs.overhead_s * cpu_inflation, inputs.cores, 1.0});
  return network;
}

std::vector<SaturationPrediction> predict_saturation_mva(const SaturationInputs& inputs,
                                                         const std::vector<int>& clients, TimeDistribution times) {
  int largest_unshared = 0;
  for (const int k : clients) {
    if (k < 1) throw UserError("a saturation curve needs at least one client (count " + std::to_string(k) + ")");
    if (!saturation_cores_shared(inputs, k)) largest_unshared = std::max(largest_unshared, k);
  }
  std::vector<MvaPoint> unshared;
  if (largest_unshared > 0)
    unshared =
        solve_mva(saturation_network(inputs, largest_unshared, 1.0, times), static_cast<std::size_t>(largest_unshared));
  std::vector<SaturationPrediction> predictions;
  for (const int k : clients) {
    if (saturation_cores_shared(inputs, k)) {
      predictions.push_back(solve_shared(inputs, k, times));
    } else {
      predictions.push_back(from_point(inputs, k, false, unshared[static_cast<std::size_t>(k - 1)]));
    }
  }
  return predictions;
}

double saturation_knee_bound(const SaturationInputs& inputs) {
  return (inputs.think_s + inputs.overhead_s + inputs.service_s) / inputs.service_s;
}

int saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates) {
  if (clients.empty() || clients.size() != rates.size()) return 0;
  const std::size_t top = std::max<std::size_t>(1, rates.size() / 3);
  std::vector<double> largest(rates.end() - static_cast<std::ptrdiff_t>(top), rates.end());
  std::sort(largest.begin(), largest.end());
  const std::size_t n = largest.size();
  const double plateau = n % 2 == 1 ? largest[n / 2] : 0.5 * (largest[n / 2 - 1] + largest[n / 2]);
  for (std::size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] >= kKneeShare * plateau) return clients[i];
  }
  return 0;
}

}  // namespace psbench::perf
