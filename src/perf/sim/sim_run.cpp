#include "perf/sim/sim_run.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "perf/sim/sim_platform.hpp"
#include "perf/sim/sim_shared_cpu.hpp"
#include "perf/sim/time_sampler.hpp"

namespace psbench::perf {
namespace sg4 = simgrid::s4u;
namespace {

// A push (a gradient shard with the version it was computed from), a reply, or a worker's "done".
struct Message {
  int worker = 0;
  std::uint64_t version = 0;
  bool done = false;
};

// State shared by the actors of one simulation (one per process).
struct World {
  StepCosts costs;
  IoMode io = IoMode::kSequential;
  SimOptions options;
  SimPlatform platform;
  sg4::BarrierPtr start;
  SimMeasures measures;
  double started_at = 0.0;
  std::vector<std::uint64_t> versions;                  // per server
  std::vector<std::unique_ptr<SharedCpu>> shared_cpus;  // one per host with more ranks than cores
  std::vector<SharedCpu*> rank_cpu;                     // per rank: its host's SharedCpu, or none
  std::vector<bool> crowded;                            // per rank: its host holds more ranks than cores
  std::vector<std::deque<int>> pushes;                  // per server: workers whose push waits, oldest first
  std::vector<sg4::SemaphorePtr> pushed;                // per server: one token per waiting push
};

// --staleness on one server, as psbench's server does it: a worker's clock is its pushes so far; the reply to a
// push is held while its worker leads the slowest worker not done by more than S clocks, and sent with the
// shard as it is at release.
struct ClockHold {
  std::vector<std::uint64_t> clocks;  // per worker
  std::vector<bool> done;             // per worker
  std::vector<bool> held;             // per worker: its reply waits

  [[nodiscard]] std::uint64_t slowest() const {
    std::uint64_t low = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t w = 0; w < clocks.size(); ++w)
      if (!done[w]) low = std::min(low, clocks[w]);
    return low;
  }
  [[nodiscard]] bool must_hold(int worker, int bound) const {
    return bound >= 0 && clocks[static_cast<std::size_t>(worker)] > slowest() + static_cast<std::uint64_t>(bound);
  }
};

// Marks the ranks of each host that holds more ranks than cores, and gives such a host a SharedCpu (unless SimGrid's
// own CPU model is asked for).
void share_crowded_hosts(World& world) {
  const std::vector<sg4::Host*>& hosts = world.platform.rank_hosts;
  world.rank_cpu.assign(hosts.size(), nullptr);
  world.crowded.assign(hosts.size(), false);
  std::map<sg4::Host*, std::vector<std::size_t>> ranks_of;
  for (std::size_t rank = 0; rank < hosts.size(); ++rank) ranks_of[hosts[rank]].push_back(rank);
  for (const auto& [host, ranks] : ranks_of) {
    if (static_cast<int>(ranks.size()) <= host->get_core_count()) continue;
    for (const std::size_t rank : ranks) world.crowded[rank] = true;
    if (world.options.cpu != CpuModel::kSharedCpu) continue;
    world.shared_cpus.push_back(std::make_unique<SharedCpu>(host, host->get_core_count()));
    for (const std::size_t rank : ranks) world.rank_cpu[rank] = world.shared_cpus.back().get();
  }
}

// Runs `seconds` of one core's work for `rank`, shared with the other ranks of its host by weight.
void compute(World& world, int rank, double seconds, double weight) {
  SharedCpu* cpu = world.rank_cpu[static_cast<std::size_t>(rank)];
  if (cpu != nullptr)
    cpu->execute(seconds, weight);
  else
    sg4::this_actor::execute(seconds * kSimFlopsPerS, weight);
}

// The software part of a worker's exchange (its copies into and out of the exchange's buffers, on `this` all of t_pp):
// CPU work of its own, so where its host's ranks outnumber the cores it takes a share of them as its compute does;
// elsewhere its own core runs it alone, which a wait of the same length models without a CPU action per step.
void exchange_software(World& world, int rank, double seconds) {
  if (world.crowded[static_cast<std::size_t>(rank)])
    compute(world, rank, seconds, 1.0);
  else
    sg4::this_actor::sleep_for(seconds);
}

// A mailbox per (worker, server) pair, so a push is matched in O(1): SimGrid 3.32 matches a send by scanning
// its mailbox's whole queue, and one server mailbox would hold up to W waiting pushes.
sg4::Mailbox* push_box(int w, int s) {
  return sg4::Mailbox::by_name("push-" + std::to_string(w) + "-" + std::to_string(s));
}
sg4::Mailbox* worker_box(int w) { return sg4::Mailbox::by_name("worker-" + std::to_string(w)); }
sg4::Mailbox* token_box(int w) { return sg4::Mailbox::by_name("token-" + std::to_string(w)); }

sg4::Mailbox* tail_box(int w, int s) {
  return sg4::Mailbox::by_name("tail-" + std::to_string(w) + "-" + std::to_string(s));
}

double shard_bytes(const World& world) {
  return world.costs.link_s > 0.0 ? world.costs.parameter_bytes / world.costs.servers : 0.0;
}

// The part of a push that crosses before its server replies: K / N of the pushed shard (StepCosts::link_transfers
// = 1 + K / N x its pushed over its pulled bytes, scenario.hpp). The rest, the push's tail, crosses beside the reply
// on the full-duplex links; a 1-bit push is its packed bytes.
double push_head_bytes(const World& world) { return shard_bytes(world) * (world.costs.link_transfers - 1.0); }
double push_tail_bytes(const World& world) {
  return shard_bytes(world) * world.costs.push_share - push_head_bytes(world);
}

// Posts a push (detached: the bytes move once the server takes it, as a rendezvous) and queues its worker
// for the server, which takes pushes first come, first served as one mailbox would.
sg4::CommPtr post_push(World& world, int shard, Message* message, double bytes) {
  const int worker = message->worker;
  sg4::CommPtr push = push_box(worker, shard)->put_async(message, static_cast<uint64_t>(bytes));
  world.pushes[static_cast<std::size_t>(shard)].push_back(worker);
  world.pushed[static_cast<std::size_t>(shard)]->release();
  return push;
}

// The oldest waiting push to this server: blocks until there is one and its bytes have arrived. `busy_from` is
// when its bytes began to move (the server's take), where psbench's server starts counting busy time.
std::unique_ptr<Message> take_push(World& world, int shard, double& busy_from) {
  world.pushed[static_cast<std::size_t>(shard)]->acquire();
  std::deque<int>& waiting = world.pushes[static_cast<std::size_t>(shard)];
  const int worker = waiting.front();
  waiting.pop_front();
  busy_from = sg4::Engine::get_clock();
  return push_box(worker, shard)->get_unique<Message>();
}

void load(World& world, int index) {
  if (world.io == IoMode::kSequential && index > 0) token_box(index)->get_unique<Message>();
  sg4::this_actor::sleep_for(world.costs.read_open_s);
  const double begin = sg4::Engine::get_clock();
  world.platform.disk->read(static_cast<sg_size_t>(world.costs.read_bytes));
  // The shared disk gives all readers B_par together; one reader never goes faster than B_seq.
  const double alone = world.costs.read_bytes / world.costs.disk_sequential_Bps;
  sg4::this_actor::sleep_for(std::max(0.0, alone - (sg4::Engine::get_clock() - begin)));
  if (world.io == IoMode::kSequential && index + 1 < world.costs.workers)
    token_box(index + 1)->put(new Message{index, 0, false}, 0);
  world.measures.init_io_s = std::max(world.measures.init_io_s, sg4::Engine::get_clock());
}

void worker(World& world, int index, std::uint64_t seed) {
  TimeSampler sampler(world.options.times, seed);
  load(world, index);
  world.start->wait();
  const StepCosts& c = world.costs;
  std::vector<std::uint64_t> seen(static_cast<std::size_t>(c.servers), 0);
  std::vector<sg4::CommPtr> pushes(static_cast<std::size_t>(c.servers));
  std::vector<sg4::CommPtr> tails(static_cast<std::size_t>(c.servers));
  // The replies of the exchange in flight (their receives posted with its pushes, as the trainer's are, so
  // that a server's reply can land while this worker computes), then its sends (long done by then).
  std::vector<Message*> replies(static_cast<std::size_t>(c.servers), nullptr);
  std::vector<sg4::CommPtr> receives(static_cast<std::size_t>(c.servers));
  const auto take_replies = [&] {
    for (int s = 0; s < c.servers; ++s) {
      receives[static_cast<std::size_t>(s)]->wait();
      const std::unique_ptr<Message> reply(replies[static_cast<std::size_t>(s)]);
      seen[static_cast<std::size_t>(reply->worker)] = reply->version;
    }
    for (const sg4::CommPtr& push : pushes) push->wait();
    for (const sg4::CommPtr& tail : tails)
      if (tail) tail->wait();
    exchange_software(world, c.servers + index, c.exchange_software_s / 2.0);
  };
  // With --pipeline a push carries the versions its weights came from: those of the replies taken before the
  // step that computed it, one exchange older than the replies taken just before it is sent.
  std::vector<std::uint64_t> computed_on = seen;
  const auto steps = static_cast<long>(c.steps_per_worker);
  for (long step = 0; step < steps; ++step) {
    computed_on = seen;
    compute(world, c.servers + index, sampler.draw(c.compute_s, c.compute_cv), 1.0);
    if (c.pipeline && step > 0) take_replies();
    exchange_software(world, c.servers + index, c.exchange_software_s / 2.0);
    for (int s = 0; s < c.servers; ++s) {
      const std::uint64_t version = computed_on[static_cast<std::size_t>(s)];
      pushes[static_cast<std::size_t>(s)] =
          post_push(world, s, new Message{index, version, false}, push_head_bytes(world));
      if (push_tail_bytes(world) > 0.0)
        tails[static_cast<std::size_t>(s)] = tail_box(index, s)->put_async(
            new Message{index, version, false}, static_cast<uint64_t>(push_tail_bytes(world)));
    }
    for (int s = 0; s < c.servers; ++s)
      receives[static_cast<std::size_t>(s)] =
          worker_box(index)->get_async<Message>(&replies[static_cast<std::size_t>(s)]);
    if (!c.pipeline) take_replies();
  }
  if (c.pipeline && steps > 0) take_replies();
  world.measures.updates += static_cast<double>(steps);
  world.measures.compute_s = std::max(world.measures.compute_s, sg4::Engine::get_clock() - world.started_at);
  for (int s = 0; s < c.servers; ++s) post_push(world, s, new Message{index, 0, true}, 0.0)->wait();
}

// A held reply, released: the shard at its version now, to the worker's mailbox; waits until it has gone.
void send_reply(World& world, int shard, int worker) {
  worker_box(worker)->put_async(new Message{shard, world.versions[shard], false}, shard_bytes(world))->wait();
}

void server(World& world, int shard, std::uint64_t seed) {
  TimeSampler sampler(world.options.times, seed);
  world.start->wait();
  world.started_at = sg4::Engine::get_clock();
  const StepCosts& c = world.costs;
  const auto workers = static_cast<std::size_t>(c.workers);
  ClockHold hold{std::vector<std::uint64_t>(workers, 0), std::vector<bool>(workers, false),
                 std::vector<bool>(workers, false)};
  // After any push or done: sends every held reply the bound now lets go.
  const auto release = [&] {
    for (std::size_t w = 0; w < workers; ++w) {
      if (!hold.held[w] || hold.must_hold(static_cast<int>(w), c.staleness)) continue;
      hold.held[w] = false;
      send_reply(world, shard, static_cast<int>(w));
    }
  };
  int done = 0;
  while (done < c.workers) {
    double begin = 0.0;
    auto message = take_push(world, shard, begin);
    const auto worker = static_cast<std::size_t>(message->worker);
    if (message->done) {
      ++done;
      hold.done[worker] = true;
      release();
      continue;
    }
    world.measures.staleness_sum += static_cast<double>(world.versions[shard] - message->version);
    world.measures.shard_updates += 1.0;
    compute(world, shard, sampler.draw(c.service_s, c.service_cv), world.options.server_priority);
    ++world.versions[shard];
    ++hold.clocks[worker];
    // The reply starts while the push's tail still crosses (full-duplex links), unless the bound holds it.
    sg4::CommPtr reply;
    if (hold.must_hold(message->worker, c.staleness)) {
      hold.held[worker] = true;
    } else {
      reply =
          worker_box(message->worker)->put_async(new Message{shard, world.versions[shard], false}, shard_bytes(world));
    }
    if (push_tail_bytes(world) > 0.0) tail_box(message->worker, shard)->get_unique<Message>();
    if (reply) reply->wait();
    release();
    world.measures.server_busy_s += sg4::Engine::get_clock() - begin;
  }
}

}  // namespace

SimMeasures run_simulation(const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  int argc = 5;
  const char* argv[] = {"psbench-sim",
                        "--cfg=contexts/factory:raw",
                        "--cfg=contexts/stack-size:64",
                        "--cfg=network/model:CM02",
                        "--log=root.thresh:critical",
                        nullptr};
  sg4::Engine engine(&argc, const_cast<char**>(argv));
  auto world = std::make_shared<World>();
  world->costs = costs;
  world->io = scenario.io;
  world->options = options;
  world->platform = build_platform(costs, scenario, options.seed);
  world->start = sg4::Barrier::create(static_cast<unsigned>(costs.workers + costs.servers));
  world->versions.assign(static_cast<std::size_t>(costs.servers), 0);
  world->pushes.resize(static_cast<std::size_t>(costs.servers));
  for (int s = 0; s < costs.servers; ++s) world->pushed.push_back(sg4::Semaphore::create(0));
  share_crowded_hosts(*world);
  std::mt19937_64 seeds(options.seed);
  for (int s = 0; s < costs.servers; ++s) {
    sg4::Actor::create("server-" + std::to_string(s), world->platform.rank_hosts[s],
                       [world, s, seed = seeds()] { server(*world, s, seed); });
  }
  for (int w = 0; w < costs.workers; ++w) {
    sg4::Actor::create("worker-" + std::to_string(w), world->platform.rank_hosts[costs.servers + w],
                       [world, w, seed = seeds()] { worker(*world, w, seed); });
  }
  engine.run();
  return world->measures;
}

}  // namespace psbench::perf
