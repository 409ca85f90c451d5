#include "saturation_point.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "common/median.hpp"
#include "common/phase_timer.hpp"
#include "common/resources.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "ps/server.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/worker_client.hpp"

namespace psbench::bench {
namespace {

constexpr ps::SgdConfig kSgd{1e-3F, 0.9F};  // the trainer's default optimizer
constexpr auto kIdlePoll = std::chrono::milliseconds(20);
constexpr auto kActivePoll = std::chrono::microseconds(50);
// The measured window is cut into kSlices equal slices; where each of kMedianSlices groups of them holds at
// least kEventsPerGroup exchanges (or services), a point's figure is the median over the groups, so one
// descheduled moment moves one group, not the figure. Fewer events: the whole window's figure.
constexpr int kSlices = 10;
constexpr int kMedianSlices = 5;
constexpr double kEventsPerGroup = 25.0;

// What one rank measured; gathered as doubles onto world rank 0 (sub-communicator rank 0).
struct RankMeasure {
  double is_server = 0.0;
  std::array<double, kSlices> slice_events{};   // client: exchanges ending in each slice; server (k = 1): updates
  std::array<double, kSlices> slice_service{};  // server (k = 1): service seconds of the updates of each slice
  double exchanges = 0.0;                       // client: exchanges completed inside the window
  double response_sum = 0.0;                    // client: seconds inside push_pull for those exchanges
  double think_sum = 0.0;                       // client: seconds slept after them
  double window = 0.0;                          // seconds counted
  double busy = 0.0;                            // server: service seconds over span
  double span = 0.0;                            // server: seconds observed
  double service_sum = 0.0;  // server: per-update service seconds (in the window, else the whole run)
  double service_square = 0.0;
  double services = 0.0;
  double cpu_seconds = 0.0;    // its thread's CPU time (kernel included): client, the whole loop; server, cpu_updates'
  double all_exchanges = 0.0;  // client: the exchanges of the whole loop
  double cpu_updates = 0.0;    // server: the updates its cpu_seconds served
  double huge_share = 0.0;     // server, shared path: its mapping of the clients' segments on 2 MiB pages
};
constexpr std::size_t kFields = sizeof(RankMeasure) / sizeof(double);

// Waits for every rank of comm, sleeping between polls so that a waiting rank leaves its core to others.
void sleeping_barrier(const mpi::Communicator& comm, std::chrono::microseconds poll) {
  MPI_Request request = MPI_REQUEST_NULL;
  PSBENCH_MPI_CALL(MPI_Ibarrier(comm.native(), &request));
  int done = 0;
  for (;;) {
    PSBENCH_MPI_CALL(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done != 0) return;
    std::this_thread::sleep_for(poll);
  }
}

bool is_active(const mpi::Communicator& world, const PointSpec& spec) {
  const int rank = world.rank();
  return rank < spec.servers || (rank >= spec.most_servers && rank - spec.most_servers < spec.clients);
}

// The slice of [begin, begin + window) that time falls in (clamped to the first and last).
std::size_t slice_of(double time, double begin, double window) {
  const double at = (time - begin) / window * kSlices;
  return static_cast<std::size_t>(std::clamp(at, 0.0, static_cast<double>(kSlices - 1)));
}

// The median over kMedianSlices groups of slices of numerator / denominator, where every group has
// kEventsPerGroup events; otherwise the whole window's ratio.
double robust_ratio(const std::array<double, kSlices>& numerator, const std::array<double, kSlices>& denominator,
                    const std::array<double, kSlices>& events) {
  constexpr int kPerGroup = kSlices / kMedianSlices;
  std::vector<double> ratios;
  double top = 0.0, bottom = 0.0;
  bool enough = true;
  for (int g = 0; g < kMedianSlices; ++g) {
    double n = 0.0, d = 0.0, e = 0.0;
    for (int i = g * kPerGroup; i < (g + 1) * kPerGroup; ++i) {
      n += numerator[static_cast<std::size_t>(i)];
      d += denominator[static_cast<std::size_t>(i)];
      e += events[static_cast<std::size_t>(i)];
    }
    enough = enough && e >= kEventsPerGroup && d > 0.0;
    if (d > 0.0) ratios.push_back(n / d);
    top += n;
    bottom += d;
  }
  if (enough) return median(ratios);
  return bottom > 0.0 ? top / bottom : 0.0;
}

// What the servers and clients run with: the spin budget mpi::configure_waits chose for this node.
ps::ProtocolSettings saturation_settings() { return {-1, ps::kDefaultStallTimeoutSeconds, mpi::spin_budget()}; }

RankMeasure run_client(const mpi::Communicator& sub, const mpi::Communicator& clients, const ps::Topology& topology,
                       const ps::ShardLayout& layout, const ps::NodeLink* link, const PointSpec& spec) {
  ps::WorkerClient client(sub, topology, layout, link, false, saturation_settings());
  // A client on another node than every server (a hostfile) has no vectors in the window: it uses its own.
  // In the window, the replies land in the parameter area itself: the client copies nothing.
  const bool in_window = link != nullptr && !link->gradients().empty();
  const AlignedBuffer own_weights(in_window ? 0 : spec.parameters);  // aligned as a model's vectors are
  const std::span<float> weights = in_window ? client.reply_parameters() : own_weights.span();
  const AlignedBuffer own_gradients(in_window ? 0 : spec.parameters);
  const std::span<float> gradients = in_window ? link->gradients() : own_gradients.span();
  std::fill(gradients.begin(), gradients.end(), 1e-6F);
  PhaseTimer timer;
  ps::PushHeader header;
  header.samples = 1;
  header.last_of_epoch = 1;  // every exchange ends an "epoch": the server reports its clock per round
  const auto think = std::chrono::nanoseconds(static_cast<std::int64_t>(spec.think_us * 1e3));
  sleeping_barrier(sub, kActivePoll);
  // One uncounted exchange (epoch 0) first: a client's first update costs the server several later ones (it
  // pays for the client's pages), and K clients' first updates queue behind each other: 16 of the cnn's held
  // the server for longer than a point's warm-up. The clients then start together, and the server's window
  // opens when all have made theirs.
  header.epoch = 0;
  client.push_pull(gradients, weights, header, timer);
  sleeping_barrier(clients, kActivePoll);
  const double start = monotonic_seconds();
  const double cpu_start = thread_cpu_seconds();
  RankMeasure measure;
  measure.window = spec.seconds - spec.warmup_seconds;
  for (std::uint32_t exchange = 1; monotonic_seconds() < start + spec.seconds; ++exchange) {
    measure.all_exchanges += 1.0;
    header.epoch = exchange;
    const double pushed = monotonic_seconds();
    client.push_pull(gradients, weights, header, timer);
    const double pulled = monotonic_seconds();
    if (think.count() > 0) std::this_thread::sleep_for(think);
    if (pulled < start + spec.warmup_seconds || pulled > start + spec.seconds) continue;
    measure.slice_events[slice_of(pulled, start + spec.warmup_seconds, measure.window)] += 1.0;
    measure.exchanges += 1.0;
    measure.response_sum += pulled - pushed;
    measure.think_sum += monotonic_seconds() - pulled;
  }
  measure.cpu_seconds = thread_cpu_seconds() - cpu_start;
  client.finish();
  return measure;
}

// Busy fraction and service times from the server's clock at the end of each round of pushes.
RankMeasure server_measure(const std::vector<ps::EpochProgress>& rounds, const ps::ServerStats& stats, double begin,
                           double end, int clients) {
  RankMeasure measure;
  measure.is_server = 1.0;
  std::vector<const ps::EpochProgress*> inside;
  for (const auto& round : rounds) {
    if (round.finished_at >= begin && round.finished_at <= end) inside.push_back(&round);
  }
  // The window's rounds, else the whole run (whose first update of each client pays for its set-up).
  double updates = static_cast<double>(stats.updates);
  if (inside.size() >= 2) {
    measure.busy = inside.back()->service_seconds - inside.front()->service_seconds;
    measure.span = inside.back()->finished_at - inside.front()->finished_at;
    updates = static_cast<double>(inside.back()->updates - inside.front()->updates);
  } else {
    measure.busy = stats.service_seconds;
    measure.span = stats.serve_seconds;
  }
  if (clients == 1 && inside.size() >= 2) {  // one client: each round is one update
    for (std::size_t i = 1; i < inside.size(); ++i) {
      const double service = inside[i]->service_seconds - inside[i - 1]->service_seconds;
      const std::size_t slice = slice_of(inside[i]->finished_at, begin, end - begin);
      measure.slice_events[slice] += 1.0;
      measure.slice_service[slice] += service;
      measure.service_sum += service;
      measure.service_square += service * service;
      measure.services += 1.0;
    }
  } else {
    measure.service_sum = measure.busy;
    measure.services = updates;
  }
  return measure;
}

// The server thread's CPU time and update count at one round's end.
struct CpuMark {
  double cpu_seconds = 0.0;
  double updates = 0.0;
};

RankMeasure run_server(const mpi::Communicator& sub, const ps::Topology& topology, const ps::ShardLayout& layout,
                       const ps::NodeLink* link, const PointSpec& spec) {
  const std::vector<float> initial(spec.parameters, 0.0F);
  ps::Server server(sub, topology, layout, initial, kSgd, link, std::nullopt, saturation_settings());
  std::vector<ps::EpochProgress> rounds;
  rounds.reserve(1 << 16);
  sleeping_barrier(sub, kActivePoll);
  const double start = monotonic_seconds();
  const double cpu_start = thread_cpu_seconds();
  // The window opens a warm-up after every client's uncounted first exchange (round 0), as the clients' do.
  const auto opened = [&] { return !rounds.empty() && rounds.front().epoch == 0 ? rounds.front().finished_at : start; };
  // The CPU clock is read twice, at the first round of the window and the first after it (a read costs a
  // system call, several µs on a VM: not one per update).
  std::optional<CpuMark> window_start, window_end;
  const ps::ServerStats stats = server.serve([&](const ps::EpochProgress& round) {
    rounds.push_back(round);
    const auto updates = static_cast<double>(round.updates);
    if (!window_start && round.finished_at >= opened() + spec.warmup_seconds) {
      window_start = CpuMark{thread_cpu_seconds(), updates};
    } else if (window_start && !window_end && round.finished_at > opened() + spec.seconds) {
      window_end = CpuMark{thread_cpu_seconds(), updates};
    }
  });
  RankMeasure measure =
      server_measure(rounds, stats, opened() + spec.warmup_seconds, opened() + spec.seconds, spec.clients);
  if (window_start && window_end && window_end->updates > window_start->updates) {
    measure.cpu_seconds = window_end->cpu_seconds - window_start->cpu_seconds;
    measure.cpu_updates = window_end->updates - window_start->updates;
  } else {  // too few rounds to frame the window: the whole run
    measure.cpu_seconds = thread_cpu_seconds() - cpu_start;
    measure.cpu_updates = static_cast<double>(stats.updates);
  }
  if (link != nullptr && !link->local_workers().empty()) {
    const ps::LocalWorker& worker = link->local_workers().front();
    measure.huge_share = mpi::huge_page_share(std::as_bytes(std::span(worker.gradients, spec.parameters)));
  }
  return measure;
}

// Sums the clients' figures and takes the busiest server's utilisation.
PointResult combine(const std::vector<double>& all, const PointSpec& spec) {
  double exchanges = 0.0, response = 0.0, think = 0.0, window = 0.0, utilization = 0.0, cpu = 0.0, cycles = 0.0;
  double service = 0.0, square = 0.0, services = 0.0, huge_share = 0.0, server_cpu = 0.0, server_updates = 0.0;
  std::array<double, kSlices> done{}, updates{}, busy{};  // per slice: clients' exchanges, servers' updates, service
  for (std::size_t r = 0; r < all.size() / kFields; ++r) {
    std::array<double, kFields> fields{};
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(r * kFields), kFields, fields.begin());
    const auto m = std::bit_cast<RankMeasure>(fields);
    if (m.is_server != 0.0) {
      utilization = std::max(utilization, m.span > 0.0 ? m.busy / m.span : 0.0);
      huge_share = std::max(huge_share, m.huge_share);
      service += m.service_sum;
      square += m.service_square;
      services += m.services;
      server_cpu += m.cpu_seconds;
      server_updates += m.cpu_updates;
      for (std::size_t i = 0; i < kSlices; ++i) {
        updates[i] += m.slice_events[i];
        busy[i] += m.slice_service[i];
      }
      continue;
    }
    for (std::size_t i = 0; i < kSlices; ++i) done[i] += m.slice_events[i];
    exchanges += m.exchanges;
    cpu += m.cpu_seconds;
    cycles += m.all_exchanges;
    response += m.response_sum;
    think += m.think_sum;
    window = m.window;
  }
  PointResult result;
  result.window_huge_share = huge_share;
  SaturationPoint& point = result.point;
  point.clients = spec.clients;
  std::array<double, kSlices> slice_seconds{};
  slice_seconds.fill(window / kSlices);
  point.updates_per_s = robust_ratio(done, slice_seconds, done);
  point.utilization = utilization;
  point.response_us = exchanges > 0.0 ? 1e6 * response / exchanges : 0.0;
  point.queue_length = response / window;
  point.service_us = services > 0.0 ? 1e6 * service / services : 0.0;
  if (spec.clients == 1 && services > 0.0) point.service_us = 1e6 * robust_ratio(busy, updates, updates);
  point.think_us = exchanges > 0.0 ? 1e6 * think / exchanges : 0.0;
  point.client_cpu_us = cycles > 0.0 ? 1e6 * cpu / cycles : 0.0;
  point.server_cpu_us = server_updates > 0.0 ? 1e6 * server_cpu / server_updates : 0.0;
  if (spec.clients == 1 && services > 1.0 && square > 0.0) {
    const double mean = service / services;
    result.service_cv = std::sqrt(std::max(0.0, square / services - mean * mean)) / mean;
  }
  return result;
}

}  // namespace

PointResult run_point(const mpi::Communicator& world, const PointSpec& spec) {
  const bool active = is_active(world, spec);
  PointResult result;
  {
    const mpi::Communicator sub = world.split(active ? 0 : MPI_UNDEFINED, world.rank());
    if (active) {
      const auto topology = ps::Topology::async(sub.size(), sub.rank(), spec.servers);
      const ps::ShardLayout layout(spec.parameters, spec.servers);
      std::unique_ptr<ps::NodeLink> link;
      if (spec.shared) link = std::make_unique<ps::NodeLink>(sub, sub.split_by_node(), topology, spec.parameters);
      const mpi::Communicator clients = sub.split(topology.is_server() ? MPI_UNDEFINED : 0, sub.rank());
      const RankMeasure measure = topology.is_server() ? run_server(sub, topology, layout, link.get(), spec)
                                                       : run_client(sub, clients, topology, layout, link.get(), spec);
      const std::array<double, kFields> fields = std::bit_cast<std::array<double, kFields>>(measure);
      const std::vector<double> all = sub.gather(std::span<const double>(fields), 0);
      if (sub.rank() == 0) result = combine(all, spec);
    }
  }
  sleeping_barrier(world, active ? kActivePoll : std::chrono::microseconds(kIdlePoll));
  return result;
}

}  // namespace psbench::bench
