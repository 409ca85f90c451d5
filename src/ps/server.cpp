#include "ps/server.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "common/phase_timer.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
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

void tally_step(std::vector<EpochTally>& tallies, const PushHeader& header, int workers, const ServerStats& stats,
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
                           monotonic_seconds(), stats.service_seconds, stats.idle_seconds});
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
      chunk_receives_(static_cast<std::size_t>(chunk_count(layout.size(topology.rank))), MPI_REQUEST_NULL),
      chunk_sends_(static_cast<std::size_t>(chunk_count(layout.size(topology.rank))), MPI_REQUEST_NULL),
      optimizer_(layout.size(topology.rank), config) {
  PSBENCH_CHECK(topology.is_server()) << "rank " << topology.rank << " is not a server";
  PSBENCH_CHECK(initial_parameters.size() == layout.parameters()) << "initial parameters do not match the layout";
}

ServerStats Server::serve(const std::function<void(const EpochProgress&)>& on_epoch) {
  ServerStats stats;
  std::vector<EpochTally> tallies;
  PushHeader header;
  PullHeader reply;
  const MPI_Comm comm = world_.native();
  const int chunks = static_cast<int>(chunk_receives_.size());
  const double serve_start = monotonic_seconds();
  int workers_done = 0;
  while (workers_done < topology_.workers()) {
    const double wait_start = monotonic_seconds();
    const MPI_Status probed = mpi::wait_for_message(comm, MPI_ANY_SOURCE, kTagPushHeader);
    const double arrived = monotonic_seconds();
    stats.idle_seconds += arrived - wait_start;
    const int source = probed.MPI_SOURCE;
    PSBENCH_MPI_CALL(MPI_Recv(&header, sizeof header, MPI_BYTE, source, kTagPushHeader, comm, MPI_STATUS_IGNORE));
    if (header.kind == PushKind::kDone) {
      ++workers_done;
      continue;
    }
    PSBENCH_CHECK(header.version <= version_)
        << "worker " << source << " used version " << header.version << " but this shard is at " << version_;
    for (int c = 0; c < chunks; ++c) {
      const auto [offset, count] = chunk_span(c);
      PSBENCH_MPI_CALL(MPI_Irecv(gradient_.data() + offset, count, MPI_FLOAT, source, kTagPushData, comm,
                                 &chunk_receives_[static_cast<std::size_t>(c)]));
    }
    stats.staleness.record(version_ - header.version);
    ++version_;
    reply.version = version_;
    PSBENCH_MPI_CALL(MPI_Send(&reply, sizeof reply, MPI_BYTE, source, kTagPullHeader, comm));
    for (int c = 0; c < chunks; ++c) {
      const auto slot = static_cast<std::size_t>(c);
      const auto [offset, count] = chunk_span(c);
      mpi::wait_all(std::span<MPI_Request>(&chunk_receives_[slot], 1));
      const double apply_start = monotonic_seconds();
      const auto length = static_cast<std::size_t>(count);
      optimizer_.apply_slice(std::span<float>(weights_).subspan(offset, length),
                             std::span<const float>(gradient_).subspan(offset, length), offset);
      stats.apply_seconds += monotonic_seconds() - apply_start;
      PSBENCH_MPI_CALL(
          MPI_Isend(weights_.data() + offset, count, MPI_FLOAT, source, kTagPullData, comm, &chunk_sends_[slot]));
    }
    // The next update may modify any chunk: every send from the weights completes first.
    mpi::wait_all(chunk_sends_);
    ++stats.updates;
    stats.service_seconds += monotonic_seconds() - arrived;
    tally_step(tallies, header, topology_.workers(), stats, on_epoch);
  }
  stats.serve_seconds = monotonic_seconds() - serve_start;
  return stats;
}

std::pair<std::size_t, int> Server::chunk_span(int chunk) const {
  const std::size_t offset = static_cast<std::size_t>(chunk) * kChunkValues;
  const std::size_t count = std::min(kChunkValues, weights_.size() - std::min(offset, weights_.size()));
  return {offset, static_cast<int>(count)};
}

}  // namespace psbench::ps
