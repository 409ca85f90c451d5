#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/phase_timer.hpp"
#include "mpi/communicator.hpp"
#include "mpi/request_set.hpp"
#include "ps/node_link.hpp"
#include "ps/protocol.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// Worker side of the protocol: pushes every gradient shard to its server and pulls the fresh shard
/// straight into the parameter vector (no copies: MPI reads and writes the model's own buffers). A server
/// on this worker's node (through link) is reached by mailbox instead: it reads the gradient where the
/// model left it in the shared window and writes its fresh shard into this worker's parameter area
/// (reply_parameters()), from which this worker copies each chunk into its parameters as it is published,
/// or copies nothing where the parameters are that area. Where every server is local and the ranks
/// outnumber the cores, the worker sleeps in the kernel until its replies are written. Each reply is checked (size,
/// version ahead of the push) and a bad one ends the job with a ProtocolError naming the server; a server silent for
/// the stall timeout ends it with PeerStalled.
class WorkerClient {
 public:
  /// Collective over world (with every server's Server): duplicates world for the protocol; prepares
  /// headers and requests for every server; allocates nothing later.
  WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
               const NodeLink* link = nullptr);
  /// One step's exchange: sends gradients' shards tagged with the versions last pulled (step gives the
  /// header's loss, epoch, samples and end of epoch; its kind and version are set here), then receives the
  /// fresh shards into parameters; adds the send time to Phase::kPush and the rest to Phase::kPull.
  /// gradients must stay untouched until this returns (it does, the call blocks). With a link, gradients
  /// outside the link's window (a scaled or remainder-batch gradient) are first copied into it. For
  /// servers reached by mailbox nothing is sent: their whole exchange is timed as Phase::kPull.
  void push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                 PhaseTimer& timer);
  /// Tells every server this worker has finished (kDone), or that its run diverged (kAbort); call once,
  /// after the last push_pull.
  void finish(PushKind kind = PushKind::kDone);
  /// After finish(), on the worker every Server::send_final_shard names: receives each server's final shard
  /// into its range of parameters.
  void receive_final_shards(std::span<float> parameters);
  /// The parameter area local servers write their fresh shards into (P values; empty without a local
  /// server): passed as push_pull's parameters, the replies land in place and nothing is copied.
  [[nodiscard]] std::span<float> reply_parameters() const { return shared_parameters_; }
  /// Versions of each shard as last pulled.
  [[nodiscard]] const std::vector<std::uint64_t>& versions() const { return versions_; }

 private:
  /// Waits until every reply is in (copying published chunks meanwhile); returns when the sends completed.
  double wait_for_replies(std::span<float> parameters, double start);
  /// wait_for_replies where every server is local (nothing travels by message).
  double wait_for_local_replies(std::span<float> parameters, double start);
  /// Checks each server's reply: header and chunk sizes, and a version past the one pushed.
  void check_replies() const;
  /// Throws PeerStalled naming the first server whose reply is not complete.
  [[noreturn]] void report_silent_server(std::span<float> parameters, double seconds);

  mpi::Communicator comm_;  // this worker's duplicate of world: the protocol's messages only
  Topology topology_;
  ShardLayout layout_;
  std::vector<std::uint64_t> versions_;
  std::vector<PushHeader> push_headers_;
  std::vector<PullHeader> pull_headers_;
  mpi::RequestSet sends_;
  mpi::RequestSet receives_;
  std::vector<MPI_Status> receive_statuses_;
  std::vector<std::size_t> first_request_;  // per server: its header's index in sends_ and receives_
  /// Copies the chunks server k has published since the last call; true once its whole reply is in.
  bool copy_published_chunks(int shard, std::span<float> parameters);

  std::vector<Mailbox*> mailboxes_;           // per server: its mailbox on this node, or nullptr
  std::vector<Doorbell*> doorbells_;          // per server: its doorbell on this node, or nullptr
  std::vector<std::uint64_t> chunks_copied_;  // per server: chunks copied out of its replies so far
  std::span<float> shared_gradients_;
  std::span<float> shared_parameters_;  // the area local servers write their replies into
  bool all_local_ = false;              // every server shares this node: no message in any exchange
  std::uint64_t sequence_ = 0;          // pushes so far; each gradient push is answered with a whole shard
};

}  // namespace psbench::ps
