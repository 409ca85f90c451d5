#include "ps/server.hpp"

#include "common/check.hpp"
#include "common/phase_timer.hpp"
#include "mpi/call.hpp"
#include "ps/idle_wait.hpp"
#include "ps/protocol.hpp"

namespace psbench::ps {
namespace {

// Per-epoch totals of the pushes seen so far; an epoch is reported once every worker has finished it.
struct EpochTally {
  double loss_sum = 0.0;
  std::uint64_t steps = 0;
  std::uint64_t samples = 0;
  int workers_finished = 0;
};

void tally_step(std::vector<EpochTally>& tallies, const PushHeader& header, int workers,
                const std::function<void(const EpochProgress&)>& on_epoch) {
  if (header.epoch >= tallies.size()) tallies.resize(header.epoch + 1);  // once per epoch, not per step
  EpochTally& tally = tallies[header.epoch];
  tally.loss_sum += header.loss;
  tally.steps += 1;
  tally.samples += header.samples;
  if (header.last_of_epoch == 0) return;
  tally.workers_finished += 1;
  if (tally.workers_finished == workers && on_epoch) {
    on_epoch(EpochProgress{header.epoch, tally.loss_sum / static_cast<double>(tally.steps), tally.samples,
                           monotonic_seconds()});
  }
}

}  // namespace

Server::Server(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
               std::span<const float> initial_parameters, SgdConfig config)
    : world_(world),
      topology_(topology),
      weights_(initial_parameters.begin() + static_cast<std::ptrdiff_t>(layout.begin(topology.rank)),
               initial_parameters.begin() +
                   static_cast<std::ptrdiff_t>(layout.begin(topology.rank) + layout.size(topology.rank))),
      gradient_(layout.size(topology.rank)),
      optimizer_(layout.size(topology.rank), config) {
  PSBENCH_CHECK(topology.is_server()) << "rank " << topology.rank << " is not a server";
  PSBENCH_CHECK(initial_parameters.size() == layout.parameters()) << "initial parameters do not match the layout";
}

ServerStats Server::serve(const std::function<void(const EpochProgress&)>& on_epoch) {
  ServerStats stats;
  std::vector<EpochTally> tallies;
  PushHeader header;
  PullHeader reply;
  const int shard_size = static_cast<int>(weights_.size());
  const double serve_start = monotonic_seconds();
  int workers_done = 0;
  while (workers_done < topology_.workers()) {
    const double wait_start = monotonic_seconds();
    const MPI_Status probed = wait_for_message(world_.native(), MPI_ANY_SOURCE, kTagPushHeader);
    const double arrived = monotonic_seconds();
    stats.idle_seconds += arrived - wait_start;
    const int source = probed.MPI_SOURCE;
    PSBENCH_MPI_CALL(
        MPI_Recv(&header, sizeof header, MPI_BYTE, source, kTagPushHeader, world_.native(), MPI_STATUS_IGNORE));
    if (header.kind == PushKind::kDone) {
      ++workers_done;
      continue;
    }
    PSBENCH_CHECK(header.version <= version_)
        << "worker " << source << " used version " << header.version << " but this shard is at " << version_;
    PSBENCH_MPI_CALL(
        MPI_Recv(gradient_.data(), shard_size, MPI_FLOAT, source, kTagPushData, world_.native(), MPI_STATUS_IGNORE));
    stats.staleness.record(version_ - header.version);
    const double apply_start = monotonic_seconds();
    optimizer_.apply(weights_, gradient_);
    stats.apply_seconds += monotonic_seconds() - apply_start;
    ++version_;
    ++stats.updates;
    reply.version = version_;
    // Blocking sends straight from the weights: the shard cannot change before the send has completed.
    PSBENCH_MPI_CALL(MPI_Send(&reply, sizeof reply, MPI_BYTE, source, kTagPullHeader, world_.native()));
    PSBENCH_MPI_CALL(MPI_Send(weights_.data(), shard_size, MPI_FLOAT, source, kTagPullData, world_.native()));
    stats.service_seconds += monotonic_seconds() - arrived;
    tally_step(tallies, header, topology_.workers(), on_epoch);
  }
  stats.serve_seconds = monotonic_seconds() - serve_start;
  return stats;
}

}  // namespace psbench::ps
