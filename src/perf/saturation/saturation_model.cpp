#include "perf/saturation/saturation_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"
#include "perf/saturation/saturation_knee.hpp"

namespace psbench::perf {
namespace {

constexpr int kFixedPointRounds = 30;
constexpr double kFixedPointTolerance = 1e-6;
constexpr double kMinFreeCores = 0.25;  // the clients never take all the servers' cores

std::string run_name(const results::SaturationRun& run) {
  return "server_saturation run S = " + std::to_string(run.servers) + ", P = " + std::to_string(run.parameters);
}

SaturationPrediction from_point(const SaturationInputs& inputs, int clients, const MvaPoint& point) {
  SaturationPrediction p;
  p.clients = clients;
  p.updates_per_s = point.throughput;
  p.utilization = point.utilization.front();
  p.response_s = point.residence.front() + inputs.overhead_s;
  p.queue_length = p.updates_per_s * p.response_s;
  return p;
}

// k clients on cores the servers share: the servers' stretch max(1, S / (m - X c_cpu)), iterated to a fixed point.
SaturationPrediction solve_shared(const SaturationInputs& inputs, int clients, TimeDistribution times) {
  double stretch = 1.0;
  for (int round = 0;; ++round) {
    const ClosedNetwork network = saturation_network(inputs, stretch, times);
    const MvaPoint point = solve_mva(network, static_cast<std::size_t>(clients)).back();
    const double next = server_stretch(inputs, point.throughput);
    if (std::abs(next - stretch) < kFixedPointTolerance || round + 1 == kFixedPointRounds)
      return from_point(inputs, clients, point);
    stretch = next;
  }
}

}  // namespace

SaturationInputs saturation_inputs(const results::SaturationRun& run, int cores, bool cpu_station) {
  const auto first = std::find_if(run.points.begin(), run.points.end(),
                                  [](const results::SaturationPoint& p) { return p.clients == 1; });
  if (first == run.points.end())
    throw UserError(run_name(run) + " has no k = 1 point: the model takes D and the client's overhead from it");
  if (!(run.service_us > 0.0)) throw UserError(run_name(run) + " has service_us " + std::to_string(run.service_us));
  if (run.service_busy_us && !(*run.service_busy_us > 0.0))
    throw UserError(run_name(run) + " has service_busy_us " + std::to_string(*run.service_busy_us));
  if (run.server_cpu_busy_us && !(*run.server_cpu_busy_us > 0.0))
    throw UserError(run_name(run) + " has server_cpu_busy_us " + std::to_string(*run.server_cpu_busy_us));
  if (!(run.think_us >= 0.0)) throw UserError(run_name(run) + " has think_us " + std::to_string(run.think_us));
  if (run.servers < 1) throw UserError(run_name(run) + " has no server");
  if (run.busy_clients && *run.busy_clients < 1)
    throw UserError(run_name(run) + " has busy_clients " + std::to_string(*run.busy_clients));
  if (cores < 1) throw UserError("server_saturation context has cores " + std::to_string(cores) + ", below 1");
  SaturationInputs inputs;
  inputs.servers = run.servers;
  inputs.parameters = run.parameters;
  inputs.think_s = 1e-6 * run.think_measured_us.value_or(run.think_us);  // what the clients slept
  inputs.service_s = 1e-6 * run.service_busy_us.value_or(run.service_us);
  if (run.service_busy_us) inputs.idle_service_s = 1e-6 * run.service_us;
  inputs.service_cv = std::max(0.0, run.service_cv);
  inputs.overhead_s = 1e-6 * std::max(0.0, first->response_us - run.service_us);
  inputs.client_cpu_s = run.client_cpu_us ? 1e-6 * std::max(0.0, *run.client_cpu_us) : inputs.overhead_s;
  inputs.cores = cores;
  inputs.cpu_station = cpu_station;
  const int probe_clients = run.busy_clients.value_or(1);
  if (!saturation_cores_shared(inputs, probe_clients)) return inputs;
  inputs.service_per_core = true;
  if (run.server_cpu_busy_us) {
    inputs.service_s = 1e-6 * *run.server_cpu_busy_us;  // what an update needs of a core: nothing to unstretch
    if (run.service_busy_us && run.busy_updates_per_s) {
      const double measured = *run.service_busy_us / *run.server_cpu_busy_us;
      inputs.preemption = std::max(0.0, measured / server_stretch(inputs, *run.busy_updates_per_s) - 1.0);
      inputs.preemption_updates_per_s = *run.busy_updates_per_s;
    }
  } else if (run.service_busy_us && run.busy_updates_per_s) {
    inputs.service_s /= server_stretch(inputs, *run.busy_updates_per_s);
  }
  return inputs;
}

double service_after_idle_s(const SaturationInputs& inputs) { return inputs.idle_service_s.value_or(inputs.service_s); }

double server_stretch(const SaturationInputs& inputs, double updates_per_s) {
  const double left = std::max(kMinFreeCores, inputs.cores - updates_per_s * inputs.client_cpu_s);
  const double woken = inputs.preemption_updates_per_s > 0.0 ? updates_per_s / inputs.preemption_updates_per_s : 0.0;
  return std::max(1.0, inputs.servers / left) * (1.0 + inputs.preemption * woken);
}

bool saturation_cores_shared(const SaturationInputs& inputs, int clients) {
  return inputs.cpu_station && inputs.servers + clients > inputs.cores;
}

ClosedNetwork saturation_network(const SaturationInputs& inputs, double stretch, TimeDistribution times) {
  ClosedNetwork network;
  network.think = inputs.think_s + inputs.overhead_s;
  const double cv = times == TimeDistribution::kExponential ? 1.0 : inputs.service_cv;
  std::optional<double> idle;
  if (inputs.idle_service_s) idle = *inputs.idle_service_s * stretch;
  network.stations.push_back({inputs.service_s * stretch, 1, cv, idle});
  return network;
}

// One recursion to the largest k on cores of their own serves every such k; each k on shared cores is its own
// fixed point.
std::vector<SaturationPrediction> predict_saturation_mva(const SaturationInputs& inputs,
                                                         const std::vector<int>& clients, TimeDistribution times) {
  int largest_unshared = 0;
  for (const int k : clients) {
    if (k < 1) throw UserError("a saturation curve needs at least one client (count " + std::to_string(k) + ")");
    if (!saturation_cores_shared(inputs, k)) largest_unshared = std::max(largest_unshared, k);
  }
  std::vector<MvaPoint> unshared;
  if (largest_unshared > 0)
    unshared = solve_mva(saturation_network(inputs, 1.0, times), static_cast<std::size_t>(largest_unshared));
  std::vector<SaturationPrediction> predictions;
  for (const int k : clients) {
    predictions.push_back(saturation_cores_shared(inputs, k)
                              ? solve_shared(inputs, k, times)
                              : from_point(inputs, k, unshared[static_cast<std::size_t>(k - 1)]));
  }
  return predictions;
}

double saturation_knee_bound(const SaturationInputs& inputs) {
  return (inputs.think_s + inputs.overhead_s + service_after_idle_s(inputs)) / inputs.service_s;
}

int saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates) {
  return find_saturation_knee(clients, rates).clients;
}

}  // namespace psbench::perf
