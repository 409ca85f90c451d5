#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "mpi/communicator.hpp"
#include "mpi/shared_window.hpp"
#include "ps/protocol.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// One worker's mailbox for one server of its node, in the worker's shared segment. The worker writes a
/// push's header and publishes its sequence number in `pushed`. The server applies the gradient where the
/// worker's backpropagation left it, chunk by chunk, publishing each fresh chunk of its weights by
/// raising `chunks_ready`; the worker copies each chunk out as it appears and, when it has them all,
/// publishes the sequence number in `pulled`. The server changes no weight before the pull is complete,
/// as the message path waits for its sends. Each side's fields share a cache line; the sides do not.
struct alignas(64) Mailbox {
  std::atomic<std::uint64_t> pushed{0};                    ///< worker: sequence number of the latest push
  std::atomic<std::uint64_t> pulled{0};                    ///< worker: sequence number of the latest pull
  PushHeader header;                                       ///< worker: the latest push's header
  alignas(64) std::atomic<std::uint64_t> chunks_ready{0};  ///< server: fresh chunks published, all replies
  std::uint64_t version = 0;                               ///< server: shard version of the latest reply
};

/// A worker on a server's node, as that server addresses it.
struct LocalWorker {
  int world_rank = 0;                ///< the worker's rank in the job
  Mailbox* mailbox = nullptr;        ///< its mailbox for this server
  const float* gradients = nullptr;  ///< its full gradient vector (P values)
};

/// The shared-memory path between the workers and servers of one node (an MPI-3 shared window). A
/// worker that shares its node with a server keeps its gradients and one mailbox per server in its
/// segment; such a server keeps its shard of the weights in its own. The server reads the
/// gradient in place and the worker copies the fresh shard straight into its model: one copy, made by the
/// worker while the server updates the next chunk. Workers and servers on different nodes use messages.
class NodeLink {
 public:
  /// Collective over world (async roles): allocates the window over node, the ranks of world that share
  /// this rank's memory (world.split_by_node(), or any split of it, which tests use to mimic nodes).
  NodeLink(const mpi::Communicator& world, mpi::Communicator node, const Topology& topology, std::size_t parameters);

  /// Worker: its mailbox for server k, or nullptr when server k is on another node.
  [[nodiscard]] Mailbox* mailbox(int shard) const;
  /// Worker: server k's weights (its shard) in shared memory, or nullptr when server k is elsewhere.
  [[nodiscard]] const float* server_weights(int shard) const;
  /// Worker: gradients in shared memory for its model (empty when no server shares the node).
  [[nodiscard]] std::span<float> gradients() const { return gradients_; }
  /// Server: its shard's weights in shared memory (empty when no worker shares the node).
  [[nodiscard]] std::span<float> weights() const { return weights_; }
  /// Server: the workers of its node, in rank order.
  [[nodiscard]] const std::vector<LocalWorker>& local_workers() const { return local_workers_; }

 private:
  mpi::Communicator node_;
  std::optional<mpi::SharedWindow> window_;
  std::vector<Mailbox*> mailboxes_;
  std::vector<const float*> server_weights_;
  std::span<float> gradients_;
  std::span<float> weights_;
  std::vector<LocalWorker> local_workers_;
};

}  // namespace psbench::ps
