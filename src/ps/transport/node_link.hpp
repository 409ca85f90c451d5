#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "mpi/communicator.hpp"
#include "mpi/shared_window.hpp"
#include "mpi/wake_counter.hpp"
#include "ps/protocol.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// One worker's mailbox for one server of its node, in the worker's shared segment. The worker writes a
/// push's header, publishes its sequence number in `pushed` and rings the server's doorbell. The server
/// applies the gradient where the worker's backpropagation left it and, in the same pass, writes each fresh
/// chunk of its weights into the worker's parameter area (beside the gradients), raising `chunks_ready`
/// after each chunk. The server never reads that area, so it never waits for the worker: the next update
/// may start at once. Each side's fields share a cache line; the sides do not (but a worker asleep on its
/// reply registers in chunks_ready's sleepers).
struct alignas(64) Mailbox {
  std::atomic<std::uint64_t> pushed{0};       ///< worker: sequence number of the latest push
  PushHeader header;                          ///< worker: the latest push's header
  alignas(64) mpi::WakeCounter chunks_ready;  ///< server: fresh chunks written, all replies so far
  std::uint64_t version = 0;                  ///< server: shard version of the latest reply
};

/// A server's doorbell, in its shared segment: every worker of its node adds one after each push, so a
/// server with nothing to do can sleep on one word whichever worker pushes next.
struct alignas(64) Doorbell {
  mpi::WakeCounter pushes;  ///< pushes of all local workers so far
};

/// A worker on a server's node, as that server addresses it.
struct LocalWorker {
  int world_rank = 0;                     ///< the worker's rank in the job
  Mailbox* mailbox = nullptr;             ///< its mailbox for this server
  const float* gradients = nullptr;       ///< its full gradient vector (P values)
  float* parameters = nullptr;            ///< its parameter area (P values): the server writes its shard's range
  const std::uint32_t* packed = nullptr;  ///< its packed gradient (--compress onebit; the link's packed_words)
};

/// The shared-memory path between the workers and servers of one node (an MPI-3 shared window). A
/// worker that shares its node with a server keeps one mailbox per server, its gradients and a parameter
/// area in its segment; such a server keeps its doorbell in its own. The server reads the gradient in place
/// and writes the fresh shard straight into the worker's parameter area, in the pass that updates it: a
/// worker whose model's parameters are that area copies nothing. Workers and servers on different nodes use
/// messages.
class NodeLink {
 public:
  /// Collective over world (async roles): allocates the window over node, the ranks of world that share
  /// this rank's memory (world.split_by_node(), or any split of it, which tests use to mimic nodes). packed_words:
  /// room for a compressed gradient (--compress onebit: the packed words of all shards), 0 without compression.
  NodeLink(const mpi::Communicator& world, mpi::Communicator node, const Topology& topology, std::size_t parameters,
           std::size_t packed_words = 0);

  /// Worker: its mailbox for server k, or nullptr when server k is on another node.
  [[nodiscard]] Mailbox* mailbox(int shard) const;
  /// Worker: server k's doorbell, or nullptr when server k is on another node.
  [[nodiscard]] Doorbell* doorbell(int shard) const;
  /// Worker: gradients in shared memory for its model (empty when no server shares the node).
  [[nodiscard]] std::span<float> gradients() const { return gradients_; }
  /// Worker: its parameter area (P values, zero at first), where each local server writes its fresh shard
  /// (empty when no server shares the node).
  [[nodiscard]] std::span<float> parameters() const { return parameters_; }
  /// Worker: its packed gradient in shared memory (packed_words; empty without compression or a local server).
  [[nodiscard]] std::span<std::uint32_t> packed() const { return packed_; }
  /// Server: its doorbell (nullptr when no worker shares the node).
  [[nodiscard]] Doorbell* own_doorbell() const { return own_doorbell_; }
  /// Server: the workers of its node, in rank order.
  [[nodiscard]] const std::vector<LocalWorker>& local_workers() const { return local_workers_; }

 private:
  mpi::Communicator node_;
  std::optional<mpi::SharedWindow> window_;
  std::vector<Mailbox*> mailboxes_;
  std::vector<Doorbell*> doorbells_;
  std::span<float> gradients_;
  std::span<float> parameters_;
  std::span<std::uint32_t> packed_;
  Doorbell* own_doorbell_ = nullptr;
  std::vector<LocalWorker> local_workers_;
};

}  // namespace psbench::ps
