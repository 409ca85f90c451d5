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

WorkerClient::WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
                           const NodeLink* link)
    : world_(world),
      topology_(topology),
      layout_(layout),
      versions_(static_cast<std::size_t>(topology.servers), 0),
      push_headers_(static_cast<std::size_t>(topology.servers)),
      pull_headers_(static_cast<std::size_t>(topology.servers)),
      sends_(requests_per_step(topology, layout), MPI_REQUEST_NULL),
      receives_(requests_per_step(topology, layout), MPI_REQUEST_NULL),
      mailboxes_(static_cast<std::size_t>(topology.servers), nullptr),
      server_weights_(static_cast<std::size_t>(topology.servers), nullptr),
      chunks_copied_(static_cast<std::size_t>(topology.servers), 0) {
  PSBENCH_CHECK(!topology.is_server()) << "rank " << topology.rank << " is a server, not a worker";
  PSBENCH_CHECK(layout.shards() == topology.servers)
      << layout.shards() << " shards for " << topology.servers << " servers";
  if (link == nullptr) return;
  for (int k = 0; k < topology.servers; ++k) {
    mailboxes_[static_cast<std::size_t>(k)] = link->mailbox(k);
    server_weights_[static_cast<std::size_t>(k)] = link->server_weights(k);
  }
  shared_gradients_ = link->gradients();
}

void WorkerClient::push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                             PhaseTimer& timer) {
  PSBENCH_CHECK(gradients.size() == layout_.parameters() && parameters.size() == layout_.parameters())
      << "vectors of " << gradients.size() << " and " << parameters.size() << " values for a layout of "
      << layout_.parameters();
  const double start = monotonic_seconds();
  const MPI_Comm comm = world_.native();
  ++sequence_;
  std::size_t request = 0;
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    const int server = topology_.server_rank(k);
    const std::size_t begin = layout_.begin(k);
    const std::size_t size = layout_.size(k);
    push_headers_[slot] = step;
    push_headers_[slot].kind = PushKind::kGradient;
    push_headers_[slot].version = versions_[slot];
    if (Mailbox* mailbox = mailboxes_[slot]; mailbox != nullptr) {
      if (gradients.data() != shared_gradients_.data()) {
        std::copy_n(gradients.begin() + static_cast<std::ptrdiff_t>(begin), size,
                    shared_gradients_.begin() + static_cast<std::ptrdiff_t>(begin));
      }
      mailbox->header = push_headers_[slot];
      mailbox->pushed.store(sequence_, std::memory_order_release);
      request += 1 + static_cast<std::size_t>(chunk_count(size));  // these requests stay null
      continue;
    }
    // Receives are posted first, straight into the parameter vector, so the reply lands without a copy.
    PSBENCH_MPI_CALL(MPI_Irecv(&pull_headers_[slot], sizeof(PullHeader), MPI_BYTE, server, kTagPullHeader, comm,
                               &receives_[request]));
    PSBENCH_MPI_CALL(
        MPI_Isend(&push_headers_[slot], sizeof(PushHeader), MPI_BYTE, server, kTagPushHeader, comm, &sends_[request]));
    ++request;
    for (int c = 0; c < chunk_count(size); ++c, ++request) {
      const auto [offset, count] = chunk_span(size, c);
      PSBENCH_MPI_CALL(MPI_Irecv(parameters.data() + begin + offset, static_cast<int>(count), MPI_FLOAT, server,
                                 kTagPullData, comm, &receives_[request]));
      PSBENCH_MPI_CALL(MPI_Isend(gradients.data() + begin + offset, static_cast<int>(count), MPI_FLOAT, server,
                                 kTagPushData, comm, &sends_[request]));
    }
  }
  // One loop for everything: a local server may be waiting for this worker to copy its last reply out
  // before it serves anyone, including the remote server this worker's sends are waiting for.
  double pushed = 0.0;
  mpi::wait_with_backoff([&] {
    bool copied = true;
    for (int k = 0; k < topology_.servers; ++k) copied = copy_published_chunks(k, parameters) && copied;
    int sent = 0;
    int received = 0;
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(sends_.size()), sends_.data(), &sent, MPI_STATUSES_IGNORE));
    if (sent != 0 && pushed == 0.0) pushed = monotonic_seconds();
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(receives_.size()), receives_.data(), &received, MPI_STATUSES_IGNORE));
    return copied && sent != 0 && received != 0;
  });
  timer.add(Phase::kPush, pushed - start);
  timer.add(Phase::kPull, monotonic_seconds() - pushed);
  for (std::size_t slot = 0; slot < versions_.size(); ++slot) {
    versions_[slot] = mailboxes_[slot] != nullptr ? mailboxes_[slot]->version : pull_headers_[slot].version;
  }
}

bool WorkerClient::copy_published_chunks(int shard, std::span<float> parameters) {
  const auto slot = static_cast<std::size_t>(shard);
  Mailbox* const mailbox = mailboxes_[slot];
  if (mailbox == nullptr) return true;
  const auto chunks = static_cast<std::uint64_t>(chunk_count(layout_.size(shard)));
  const std::uint64_t wanted = sequence_ * chunks;  // push_pull is never called after finish()
  if (chunks_copied_[slot] == wanted) return true;
  const std::uint64_t ready = std::min(mailbox->chunks_ready.load(std::memory_order_acquire), wanted);
  const std::size_t begin = layout_.begin(shard);
  for (; chunks_copied_[slot] < ready; ++chunks_copied_[slot]) {
    const auto [offset, count] = chunk_span(layout_.size(shard), static_cast<int>(chunks_copied_[slot] % chunks));
    std::copy_n(server_weights_[slot] + offset, count,
                parameters.begin() + static_cast<std::ptrdiff_t>(begin + offset));
  }
  if (chunks_copied_[slot] < wanted) return false;
  mailbox->pulled.store(sequence_, std::memory_order_release);
  return true;
}

void WorkerClient::finish(PushKind kind) {
  PushHeader done;
  done.kind = kind;
  ++sequence_;
  for (int k = 0; k < topology_.servers; ++k) {
    if (Mailbox* mailbox = mailboxes_[static_cast<std::size_t>(k)]; mailbox != nullptr) {
      mailbox->header = done;
      mailbox->pushed.store(sequence_, std::memory_order_release);
      continue;
    }
    PSBENCH_MPI_CALL(MPI_Send(&done, sizeof done, MPI_BYTE, topology_.server_rank(k), kTagPushHeader, world_.native()));
  }
}

}  // namespace psbench::ps
