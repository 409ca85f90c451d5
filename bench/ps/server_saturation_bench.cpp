// Server saturation: k = 1..K clients in a closed loop against S servers, with psbench's own ps::Server
// and ps::WorkerClient. Each client pushes a gradient of P values, waits for its fresh shards, then sleeps
// Z us in place of forward+backward (compute is emulated: a sleeping client frees its core, so many fit on
// few cores and the servers' capacity is what is measured; psbench train measures the real thing). Per k:
// updates/s, the busiest server's utilisation, the mean response time and the mean number of clients at
// the servers, each the median of interleaved repetitions; per run, D (service time per update at k = 1, and
// kept busy by all K clients with no think time), the plateau and the knee.
// Run: mpiexec -n S_max+K --oversubscribe bench_server_saturation [--json OUT] (see docs/benchmarks.md)
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_context.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/median.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/environment.hpp"
#include "saturation_options.hpp"
#include "saturation_point.hpp"

namespace {

namespace bench = psbench::bench;

constexpr const char* kNote = "compute is emulated: each client sleeps think_us in place of forward+backward";

// A pass probes D before every this many k: the probes' median then samples the machine's speed through the
// pass, as the points do, not at its start alone (a 13 MB update's D drifts by 2x within minutes on a shared VM).
constexpr int kProbeEveryClients = 4;

// The busy probe at one server count: K clients and no think time, medians of the repetitions.
struct BusyProbe {
  double service_us = 0.0;     // D of a server kept busy by the K clients
  double updates_per_s = 0.0;  // the throughput it ran at
  double server_cpu_us = 0.0;  // a server's CPU time per update there
  double client_cpu_us = 0.0;  // a client's CPU time per exchange there
};

// The runs of one parameter count and think time: one per server count, interleaved over k and repeated.
struct RunSet {
  std::size_t parameters = 0;
  double think_us = 0.0;
  std::vector<int> servers;
  int busy_clients = 1;                                              // K: the probes' clients
  std::vector<BusyProbe> busy;                                       // [server count]
  std::vector<std::vector<std::vector<bench::PointResult>>> points;  // [server count][k - 1][repetition]
};

// Seconds one point lasts, and its unmeasured start: at least min_cycles exchanges of one client, within
// [seconds, max_seconds].
bench::PointSpec spec_for(const bench::SaturationOptions& options, std::size_t parameters, double think_us,
                          double service_us) {
  bench::PointSpec spec;
  spec.most_servers = *std::max_element(options.servers.begin(), options.servers.end());
  spec.parameters = parameters;
  spec.think_us = think_us;
  spec.shared = options.shared;
  const double cycle = 1e-6 * (think_us + service_us);
  spec.seconds = std::min(options.max_seconds, std::max(options.seconds, options.min_cycles * cycle));
  spec.warmup_seconds = std::min(0.3 * spec.seconds, std::max(0.1 * spec.seconds, 3.0 * cycle));
  return spec;
}

// One busy probe at S servers: all K clients with no think time, as at saturation (at k = 1 with a think time
// the server idles before every update, and one client's buffers stay in the cache as K clients' do not).
bench::SaturationPoint probe_point(const psbench::mpi::Communicator& world, const bench::SaturationOptions& options,
                                   std::size_t parameters, int servers) {
  bench::PointSpec spec = spec_for(options, parameters, 0.0, 0.0);
  spec.servers = servers;
  spec.clients = options.max_clients;
  spec.seconds = std::max(0.2, options.seconds);
  spec.warmup_seconds = 0.05;
  return bench::run_point(world, spec).point;
}

// The medians of probes, broadcast from world rank 0 (where the points' figures are).
BusyProbe median_probe(const psbench::mpi::Communicator& world, const std::vector<bench::SaturationPoint>& probes) {
  const bench::SaturationPoint median = probes.empty() ? bench::SaturationPoint{} : bench::median_point(probes);
  double medians[4] = {median.service_us, median.updates_per_s, median.server_cpu_us, median.client_cpu_us};
  world.broadcast(std::span<double>(medians, 4), 0);
  return {medians[0], medians[1], medians[2], medians[3]};
}

// D with one server kept busy, the unit the think ratios multiply and the points' lengths start from.
double unit_service_us(const psbench::mpi::Communicator& world, const bench::SaturationOptions& options,
                       std::size_t parameters) {
  std::vector<bench::SaturationPoint> probes;
  for (int r = 0; r < options.repetitions; ++r) probes.push_back(probe_point(world, options, parameters, 1));
  return median_probe(world, probes).service_us;
}

// Every repetition passes over every k and server count in turn, probing each server count before every
// kProbeEveryClients k, so that a slow moment of the machine moves one repetition of a few points and a probe,
// which the medians leave out.
RunSet measure_runs(const psbench::mpi::Communicator& world, const bench::SaturationOptions& options,
                    std::size_t parameters, double think_us, double probe_us) {
  RunSet set{parameters, think_us, options.servers, options.max_clients, {}, {}};
  set.points.assign(options.servers.size(),
                    std::vector<std::vector<bench::PointResult>>(static_cast<std::size_t>(options.max_clients)));
  std::vector<std::vector<bench::SaturationPoint>> probes(options.servers.size());
  for (int r = 0; r < options.repetitions; ++r) {
    for (int k = 1; k <= options.max_clients; ++k) {
      const bool probe_now = (k - 1) % kProbeEveryClients == 0;
      for (std::size_t s = 0; probe_now && s < options.servers.size(); ++s) {
        probes[s].push_back(probe_point(world, options, parameters, options.servers[s]));
      }
      for (std::size_t s = 0; s < options.servers.size(); ++s) {
        bench::PointSpec spec = spec_for(options, parameters, think_us, probe_us);
        spec.servers = options.servers[s];
        spec.clients = k;
        set.points[s][static_cast<std::size_t>(k - 1)].push_back(bench::run_point(world, spec));
      }
    }
  }
  for (const auto& probe : probes) set.busy.push_back(median_probe(world, probe));
  return set;
}

// The median point of a k's repetitions, with the range of its updates/s.
nlohmann::json point_json(const std::vector<bench::PointResult>& repeats, bench::SaturationPoint& median) {
  std::vector<bench::SaturationPoint> points;
  for (const auto& repeat : repeats) points.push_back(repeat.point);
  median = bench::median_point(points);
  const auto [low, high] = std::minmax_element(
      points.begin(), points.end(), [](const auto& a, const auto& b) { return a.updates_per_s < b.updates_per_s; });
  return {{"clients", median.clients},
          {"updates_per_s", median.updates_per_s},
          {"updates_per_s_min", low->updates_per_s},
          {"updates_per_s_max", high->updates_per_s},
          {"utilization", median.utilization},
          {"response_us", median.response_us},
          {"queue_length", median.queue_length},
          {"service_us", median.service_us},
          {"think_measured_us", median.think_us},
          {"client_cpu_us", median.client_cpu_us},
          {"server_cpu_us", median.server_cpu_us}};
}

nlohmann::json run_json(const RunSet& set, std::size_t s, bool shared) {
  std::vector<bench::SaturationPoint> points(set.points[s].size());
  nlohmann::json json_points = nlohmann::json::array();
  for (std::size_t k = 0; k < points.size(); ++k) json_points.push_back(point_json(set.points[s][k], points[k]));
  std::vector<double> service_cvs, huge_shares;
  for (const auto& repeat : set.points[s].front()) service_cvs.push_back(repeat.service_cv);
  for (const auto& repeats : set.points[s]) {
    for (const auto& repeat : repeats) huge_shares.push_back(repeat.window_huge_share);
  }
  const bench::Knee knee = bench::find_knee(points);
  const double service = points.front().service_us;
  const double think = points.front().think_us;
  nlohmann::json run{{"servers", set.servers[s]},
                     {"parameters", set.parameters},
                     {"think_us", set.think_us},
                     {"repetitions", set.points[s].front().size()},
                     {"think_measured_us", think},
                     {"service_us", service},
                     {"service_cv", psbench::median(service_cvs)},
                     {"service_busy_us", set.busy[s].service_us},
                     {"busy_clients", set.busy_clients},
                     {"busy_updates_per_s", set.busy[s].updates_per_s},
                     {"server_cpu_busy_us", set.busy[s].server_cpu_us},
                     {"client_cpu_busy_us", set.busy[s].client_cpu_us},
                     {"client_cpu_us", points.front().client_cpu_us},
                     {"plateau_updates_per_s", knee.plateau_updates_per_s},
                     {"knee_clients", knee.clients},
                     {"knee_model", service > 0.0 ? bench::model_knee(think, service) : 0.0},
                     {"points", json_points}};
  if (shared) run["window_huge_pages"] = psbench::median(huge_shares);  // the messages path has no window
  return run;
}

void print_run(const nlohmann::json& run) {
  // D is one server's time for its shard, and every exchange visits every server: the plateau is near 1 / D.
  std::printf(
      "\nS = %d, P = %zu, Z = %.0f us (measured %.0f), D = %.1f us (cv %.2f; %.1f us kept busy by %d clients), "
      "medians of %zu repetitions: plateau %.1f updates/s (plateau x D = %.2f; x busy D = %.2f), knee at k = %d, "
      "model (Z + D) / D = %.1f\n",
      run["servers"].get<int>(), run["parameters"].get<std::size_t>(), run["think_us"].get<double>(),
      run["think_measured_us"].get<double>(), run["service_us"].get<double>(), run["service_cv"].get<double>(),
      run["service_busy_us"].get<double>(), run["busy_clients"].get<int>(), run["repetitions"].get<std::size_t>(),
      run["plateau_updates_per_s"].get<double>(),
      run["plateau_updates_per_s"].get<double>() * run["service_us"].get<double>() * 1e-6,
      run["plateau_updates_per_s"].get<double>() * run["service_busy_us"].get<double>() * 1e-6,
      run["knee_clients"].get<int>(), run["knee_model"].get<double>());
  if (run.contains("window_huge_pages")) {
    // Open MPI's window lives in /dev/shm: 4 KiB pages there slowed a 13 MB update 2-10x at 16 clients here.
    std::printf(
        "shared window: %.0f%% of the server's mapping on 2 MiB pages%s\n",
        100.0 * run["window_huge_pages"].get<double>(),
        run["window_huge_pages"].get<double>() < 0.5 ? " (/dev/shm gives no huge pages: docs/benchmarks.md)" : "");
  }
  std::printf("%8s %14s %21s %12s %12s %12s %12s\n", "clients", "updates/s", "range", "utilization", "response_us",
              "queue", "service_us");
  for (const auto& p : run["points"]) {
    std::printf("%8d %14.1f %10.1f-%-10.1f %12.3f %12.1f %12.2f %12.1f\n", p["clients"].get<int>(),
                p["updates_per_s"].get<double>(), p["updates_per_s_min"].get<double>(),
                p["updates_per_s_max"].get<double>(), p["utilization"].get<double>(), p["response_us"].get<double>(),
                p["queue_length"].get<double>(), p["service_us"].get<double>());
  }
  std::fflush(stdout);
}

void run(const psbench::mpi::Communicator& world, const bench::SaturationOptions& options) {
  nlohmann::json output{{"format", 1},
                        {"benchmark", "server_saturation"},
                        {"context", bench::context_json(bench::collect_context())},
                        {"note", kNote},
                        {"path", options.shared ? "shared" : "messages"},
                        {"runs", nlohmann::json::array()}};
  if (world.rank() == 0) std::printf("bench_server_saturation: %s\n", kNote);
  for (const std::size_t parameters : options.parameters) {
    const double unit = unit_service_us(world, options, parameters);
    std::vector<double> thinks = options.think_us;
    for (const double ratio : options.think_us.empty() ? options.think_ratios : std::vector<double>{}) {
      thinks.push_back(ratio * unit);
    }
    for (const double think : thinks) {
      const RunSet set = measure_runs(world, options, parameters, think, unit);
      if (world.rank() != 0) continue;
      for (std::size_t s = 0; s < set.servers.size(); ++s) {
        output["runs"].push_back(run_json(set, s, options.shared));
        print_run(output["runs"].back());
      }
    }
  }
  if (world.rank() == 0 && !options.json.empty()) psbench::write_file_atomically(options.json, output.dump(2) + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  bench::SaturationOptions options;
  try {
    options = bench::parse_saturation_options(argc, argv);
    bench::fit_to_job(options, environment.world().size());
    psbench::mpi::configure_waits(environment.world());
  } catch (const std::exception& error) {
    if (environment.world().rank() == 0) std::fprintf(stderr, "%s\n", psbench::format_error_line(error.what()).c_str());
    return 2;
  }
  run(environment.world(), options);
  return 0;
}
