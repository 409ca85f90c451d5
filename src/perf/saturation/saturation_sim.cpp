#include "perf/saturation/saturation_sim.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <simgrid/s4u.hpp>
#include <string>

#include "common/error.hpp"
#include "perf/forked_run.hpp"
#include "perf/sim/time_sampler.hpp"

namespace psbench::perf {
namespace sg4 = simgrid::s4u;
namespace {

constexpr double kFlopsPerS = 1e9;          // host speed: times become flops at this rate
constexpr double kLoopbackBps = 1e15;       // messages cost nothing beyond the measured times
constexpr double kMinCycles = 50.0;         // a point lasts at least this many cycles of each client
constexpr double kWarmupShare = 0.1;        // its first tenth is not counted
constexpr double kClientShareWeight = 1e3;  // a woken client runs before the servers on a shared core
constexpr std::size_t kFieldsPerPoint = 4;  // exchanges, response sum, busiest server's busy time, window

// A push (from a client), a fresh shard (from a server), or a client's "done".
struct Message {
  int client = 0;
  bool done = false;
};

// One point: k clients and S servers on one host, measured over [window_begin, window_end].
struct Group {
  SaturationInputs inputs;
  TimeDistribution times = TimeDistribution::kCalibrated;
  int clients = 1;
  double window_begin = 0.0;
  double window_end = 0.0;
  double exchanges = 0.0;
  double response_sum = 0.0;
  double all_exchanges = 0.0;  // since the start, warm-up included: the throughput the servers' preemption follows
  std::vector<double> busy;    // per server, inside the window
};

sg4::Mailbox* box(const std::string& role, int index) { return sg4::Mailbox::by_name(role + std::to_string(index)); }

double overlap(double begin, double end, const Group& g) {
  return std::max(0.0, std::min(end, g.window_end) - std::max(begin, g.window_begin));
}

// Half of a client's overhead c: its CPU part on a core (before the servers), the rest a wait. CPU beyond c
// (over messages a client's copies overlap the servers' service) is not simulated: mva counts it, sim does not.
void client_overhead(const SaturationInputs& in) {
  const double cpu = std::min(in.client_cpu_s, in.overhead_s) / 2.0;
  sg4::this_actor::execute(cpu * kFlopsPerS, kClientShareWeight);
  sg4::this_actor::sleep_for(in.overhead_s / 2.0 - cpu);
}

void client(Group& g, int index, std::uint64_t seed) {
  TimeSampler sampler(g.times, seed);
  const SaturationInputs& in = g.inputs;
  while (sg4::Engine::get_clock() < g.window_end) {
    const double begin = sg4::Engine::get_clock();
    client_overhead(in);
    for (int s = 0; s < in.servers; ++s) box("server-", s)->put_init(new Message{index, false}, 0)->detach();
    for (int s = 0; s < in.servers; ++s) box("client-", index)->get_unique<Message>();
    client_overhead(in);
    const double end = sg4::Engine::get_clock();
    g.all_exchanges += 1.0;
    if (end >= g.window_begin && end <= g.window_end) {
      g.exchanges += 1.0;
      g.response_sum += end - begin;
    }
    sg4::this_actor::sleep_for(sampler.draw(in.think_s, 0.0));
  }
  for (int s = 0; s < in.servers; ++s) box("server-", s)->put(new Message{index, true}, 0);
}

// The share of a core that clients woken onto a busy server's take (SaturationInputs::preemption), at the
// throughput simulated so far; the processor sharing of the clients' own CPU is simulated, not this.
double preemption_stretch(const Group& g, double now) {
  const SaturationInputs& in = g.inputs;
  if (in.preemption <= 0.0 || in.preemption_updates_per_s <= 0.0 || now <= 0.0) return 1.0;
  return 1.0 + in.preemption * (g.all_exchanges / now) / in.preemption_updates_per_s;
}

void server(Group& g, int shard, std::uint64_t seed) {
  TimeSampler sampler(g.times, seed);
  int done = 0;
  double finished = -1.0;  // when the last update ended: a push that came later found the server idle
  while (done < g.clients) {
    auto message = box("server-", shard)->get_unique<Message>();
    if (message->done) {
      ++done;
      continue;
    }
    const double begin = sg4::Engine::get_clock();
    const double mean = begin > finished ? service_after_idle_s(g.inputs) : g.inputs.service_s;
    sg4::this_actor::execute(sampler.draw(mean, g.inputs.service_cv) * preemption_stretch(g, begin) * kFlopsPerS);
    finished = sg4::Engine::get_clock();
    g.busy[static_cast<std::size_t>(shard)] += overlap(begin, sg4::Engine::get_clock(), g);
    box("client-", message->client)->put_init(new Message{shard, false}, 0)->detach();
  }
}

// Simulated seconds of the point with k clients: about `exchanges` counted, from the bound on its throughput.
double point_seconds(const SaturationInputs& in, int k, double exchanges) {
  const double cycle = std::max(in.think_s + in.overhead_s + service_after_idle_s(in), k * in.service_s);
  return std::max(kMinCycles * cycle, exchanges * cycle / k) / (1.0 - kWarmupShare);
}

sg4::Host* group_host(sg4::NetZone* zone, const Group& g) {
  const bool shared = saturation_cores_shared(g.inputs, g.clients);
  const int cores = shared ? g.inputs.cores : g.inputs.servers + g.clients;
  sg4::Host* host = zone->create_host("node", kFlopsPerS)->set_core_count(cores)->seal();
  sg4::Link* loopback = zone->create_link("loopback", kLoopbackBps)->set_latency(0.0)->seal();
  zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                  {{loopback, sg4::LinkInRoute::Direction::NONE}}, false);
  return host;
}

// One point: k clients and the servers alone in a fresh Engine (one per forked child); kFieldsPerPoint numbers.
std::vector<double> run_group(const SaturationInputs& inputs, int k, const SaturationSimOptions& options,
                              std::uint64_t seed) {
  int argc = 5;
  const char* argv[] = {"psbench-saturation-sim",   "--cfg=contexts/factory:raw", "--cfg=contexts/stack-size:64",
                        "--cfg=network/model:CM02", "--log=root.thresh:critical", nullptr};
  sg4::Engine engine(&argc, const_cast<char**>(argv));
  auto* zone = sg4::create_full_zone("saturation");
  auto g = std::make_shared<Group>();
  g->inputs = inputs;
  g->times = options.times;
  g->clients = k;
  g->window_end = point_seconds(inputs, k, options.exchanges);
  g->window_begin = kWarmupShare * g->window_end;
  g->busy.assign(static_cast<std::size_t>(inputs.servers), 0.0);
  sg4::Host* host = group_host(zone, *g);
  zone->seal();
  std::mt19937_64 seeds(seed);
  for (int s = 0; s < inputs.servers; ++s)
    sg4::Actor::create("server-" + std::to_string(s), host, [g, s, r = seeds()] { server(*g, s, r); });
  for (int c = 0; c < k; ++c)
    sg4::Actor::create("client-" + std::to_string(c), host, [g, c, r = seeds()] { client(*g, c, r); });
  engine.run();
  return {g->exchanges, g->response_sum, *std::max_element(g->busy.begin(), g->busy.end()),
          g->window_end - g->window_begin};
}

}  // namespace

std::vector<SaturationPrediction> simulate_saturation(const SaturationInputs& inputs, const std::vector<int>& clients,
                                                      const SaturationSimOptions& options) {
  std::vector<SaturationPrediction> predictions;
  std::mt19937_64 seeds(options.seed);
  for (const int k : clients) {
    if (k < 1) throw UserError("a saturation curve needs at least one client (count " + std::to_string(k) + ")");
    const std::uint64_t group_seed = seeds();
    const std::vector<double> m = run_forked([&] { return run_group(inputs, k, options, group_seed); },
                                             "the SimGrid simulation of the saturation benchmark");
    if (m.size() != kFieldsPerPoint)
      throw SystemError("the saturation simulation sent " + std::to_string(m.size()) + " numbers, not " +
                        std::to_string(kFieldsPerPoint));
    SaturationPrediction p;
    p.clients = k;
    p.updates_per_s = m[0] / m[3];
    p.utilization = m[2] / m[3];
    p.response_s = m[0] > 0.0 ? m[1] / m[0] : 0.0;
    p.queue_length = m[1] / m[3];
    predictions.push_back(p);
  }
  return predictions;
}

}  // namespace psbench::perf
