#include "saturation_point.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "common/phase_timer.hpp"
#include "mpi/call.hpp"
#include "ps/node_link.hpp"
#include "ps/server.hpp"
#include "ps/worker_client.hpp"

namespace psbench::bench {
namespace {

constexpr ps::SgdConfig kSgd{1e-3F, 0.9F};  // the trainer's default optimizer
constexpr auto kIdlePoll = std::chrono::milliseconds(2);
constexpr auto kActivePoll = std::chrono::microseconds(50);

// What one rank measured; gathered as doubles onto world rank 0 (sub-communicator rank 0).
struct RankMeasure {
  double is_server = 0.0;
  double exchanges = 0.0;     // client: exchanges completed inside the window
  double response_sum = 0.0;  // client: seconds inside push_pull for those exchanges
  double think_sum = 0.0;     // client: seconds slept after them
  double window = 0.0;        // seconds counted
  double busy = 0.0;          // server: service seconds over span
  double span = 0.0;          // server: seconds observed
  double service_sum = 0.0;   // server: per-update service seconds (windowed at k = 1, else whole run)
  double service_square = 0.0;
  double services = 0.0;
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

RankMeasure run_client(const mpi::Communicator& sub, const ps::Topology& topology, const ps::ShardLayout& layout,
                       const ps::NodeLink* link, const PointSpec& spec) {
  ps::WorkerClient client(sub, topology, layout, link);
  std::vector<float> weights(spec.parameters, 0.0F);
  // A client on another node than every server (a hostfile) has no gradients in the window: it uses its own.
  const bool in_window = link != nullptr && !link->gradients().empty();
  std::vector<float> own_gradients(in_window ? 0 : spec.parameters);
  const std::span<float> gradients = in_window ? link->gradients() : std::span<float>(own_gradients);
  std::fill(gradients.begin(), gradients.end(), 1e-6F);
  PhaseTimer timer;
  ps::PushHeader header;
  header.samples = 1;
  header.last_of_epoch = 1;  // every exchange ends an "epoch": the server reports its clock per round
  const auto think = std::chrono::nanoseconds(static_cast<std::int64_t>(spec.think_us * 1e3));
  sleeping_barrier(sub, kActivePoll);
  const double start = monotonic_seconds();
  RankMeasure measure;
  measure.window = spec.seconds - spec.warmup_seconds;
  for (std::uint32_t exchange = 0; monotonic_seconds() < start + spec.seconds; ++exchange) {
    header.epoch = exchange;
    const double pushed = monotonic_seconds();
    client.push_pull(gradients, weights, header, timer);
    const double pulled = monotonic_seconds();
    if (think.count() > 0) std::this_thread::sleep_for(think);
    if (pulled < start + spec.warmup_seconds || pulled > start + spec.seconds) continue;
    measure.exchanges += 1.0;
    measure.response_sum += pulled - pushed;
    measure.think_sum += monotonic_seconds() - pulled;
  }
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
  if (inside.size() >= 2) {
    measure.busy = inside.back()->service_seconds - inside.front()->service_seconds;
    measure.span = inside.back()->finished_at - inside.front()->finished_at;
  } else {
    measure.busy = stats.service_seconds;
    measure.span = stats.serve_seconds;
  }
  if (clients == 1 && inside.size() >= 2) {  // one client: each round is one update
    for (std::size_t i = 1; i < inside.size(); ++i) {
      const double service = inside[i]->service_seconds - inside[i - 1]->service_seconds;
      measure.service_sum += service;
      measure.service_square += service * service;
      measure.services += 1.0;
    }
  } else {
    measure.service_sum = stats.service_seconds;
    measure.services = static_cast<double>(stats.updates);
  }
  return measure;
}

RankMeasure run_server(const mpi::Communicator& sub, const ps::Topology& topology, const ps::ShardLayout& layout,
                       const ps::NodeLink* link, const PointSpec& spec) {
  const std::vector<float> initial(spec.parameters, 0.0F);
  ps::Server server(sub, topology, layout, initial, kSgd, link);
  std::vector<ps::EpochProgress> rounds;
  rounds.reserve(1 << 16);
  sleeping_barrier(sub, kActivePoll);
  const double start = monotonic_seconds();
  const ps::ServerStats stats = server.serve([&](const ps::EpochProgress& round) { rounds.push_back(round); });
  return server_measure(rounds, stats, start + spec.warmup_seconds, start + spec.seconds, spec.clients);
}

// Sums the clients' figures and takes the busiest server's utilisation.
PointResult combine(const std::vector<double>& all, const PointSpec& spec) {
  double exchanges = 0.0, response = 0.0, think = 0.0, window = 0.0, utilization = 0.0;
  double service = 0.0, square = 0.0, services = 0.0;
  for (std::size_t r = 0; r < all.size() / kFields; ++r) {
    std::array<double, kFields> fields{};
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(r * kFields), kFields, fields.begin());
    const auto m = std::bit_cast<RankMeasure>(fields);
    if (m.is_server != 0.0) {
      utilization = std::max(utilization, m.span > 0.0 ? m.busy / m.span : 0.0);
      service += m.service_sum;
      square += m.service_square;
      services += m.services;
      continue;
    }
    exchanges += m.exchanges;
    response += m.response_sum;
    think += m.think_sum;
    window = m.window;
  }
  PointResult result;
  SaturationPoint& point = result.point;
  point.clients = spec.clients;
  point.updates_per_s = exchanges / window;
  point.utilization = utilization;
  point.response_us = exchanges > 0.0 ? 1e6 * response / exchanges : 0.0;
  point.queue_length = response / window;
  point.service_us = services > 0.0 ? 1e6 * service / services : 0.0;
  point.think_us = exchanges > 0.0 ? 1e6 * think / exchanges : 0.0;
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
      const RankMeasure measure = topology.is_server() ? run_server(sub, topology, layout, link.get(), spec)
                                                       : run_client(sub, topology, layout, link.get(), spec);
      const std::array<double, kFields> fields = std::bit_cast<std::array<double, kFields>>(measure);
      const std::vector<double> all = sub.gather(std::span<const double>(fields), 0);
      if (sub.rank() == 0) result = combine(all, spec);
    }
  }
  sleeping_barrier(world, active ? kActivePoll : std::chrono::microseconds(kIdlePoll));
  return result;
}

}  // namespace psbench::bench
