#include "ps/worker_client.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"

namespace psbench::ps {

namespace {

// Requests one step needs: per server, one header and one per chunk of its shard.
std::size_t requests_per_step(const Topology& topology, const ShardLayout& layout) {
  std::size_t total = 0;
  for (int k = 0; k < topology.servers; ++k) total += 1 + static_cast<std::size_t>(chunk_count(layout.size(k)));
  return total;
}

}  // namespace

WorkerClient::WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout)
    : world_(world),
      topology_(topology),
      layout_(layout),
      versions_(static_cast<std::size_t>(topology.servers), 0),
      push_headers_(static_cast<std::size_t>(topology.servers)),
      pull_headers_(static_cast<std::size_t>(topology.servers)),
      sends_(requests_per_step(topology, layout), MPI_REQUEST_NULL),
      receives_(requests_per_step(topology, layout), MPI_REQUEST_NULL) {
  PSBENCH_CHECK(!topology.is_server()) << "rank " << topology.rank << " is a server, not a worker";
  PSBENCH_CHECK(layout.shards() == topology.servers)
      << layout.shards() << " shards for " << topology.servers << " servers";
}

void WorkerClient::push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                             PhaseTimer& timer) {
  PSBENCH_CHECK(gradients.size() == layout_.parameters() && parameters.size() == layout_.parameters())
      << "vectors of " << gradients.size() << " and " << parameters.size() << " values for a layout of "
      << layout_.parameters();
  const double start = monotonic_seconds();
  const MPI_Comm comm = world_.native();
  std::size_t request = 0;
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    const int server = topology_.server_rank(k);
    // Receives are posted first, straight into the parameter vector, so the reply lands without a copy.
    PSBENCH_MPI_CALL(MPI_Irecv(&pull_headers_[slot], sizeof(PullHeader), MPI_BYTE, server, kTagPullHeader, comm,
                               &receives_[request]));
    push_headers_[slot] = step;
    push_headers_[slot].kind = PushKind::kGradient;
    push_headers_[slot].version = versions_[slot];
    PSBENCH_MPI_CALL(
        MPI_Isend(&push_headers_[slot], sizeof(PushHeader), MPI_BYTE, server, kTagPushHeader, comm, &sends_[request]));
    ++request;
    const std::size_t begin = layout_.begin(k);
    const std::size_t size = layout_.size(k);
    for (int c = 0; c < chunk_count(size); ++c, ++request) {
      const std::size_t offset = begin + static_cast<std::size_t>(c) * kChunkValues;
      const int count = static_cast<int>(std::min(kChunkValues, begin + size - offset));
      PSBENCH_MPI_CALL(
          MPI_Irecv(parameters.data() + offset, count, MPI_FLOAT, server, kTagPullData, comm, &receives_[request]));
      PSBENCH_MPI_CALL(
          MPI_Isend(gradients.data() + offset, count, MPI_FLOAT, server, kTagPushData, comm, &sends_[request]));
    }
  }
  mpi::wait_all(sends_);
  const double pushed = monotonic_seconds();
  mpi::wait_all(receives_);
  timer.add(Phase::kPush, pushed - start);
  timer.add(Phase::kPull, monotonic_seconds() - pushed);
  for (std::size_t slot = 0; slot < versions_.size(); ++slot) versions_[slot] = pull_headers_[slot].version;
}

void WorkerClient::finish() {
  PushHeader done;
  done.kind = PushKind::kDone;
  for (int k = 0; k < topology_.servers; ++k) {
    PSBENCH_MPI_CALL(MPI_Send(&done, sizeof done, MPI_BYTE, topology_.server_rank(k), kTagPushHeader, world_.native()));
  }
}

}  // namespace psbench::ps
