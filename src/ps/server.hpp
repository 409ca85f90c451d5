#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "compress/column_layout.hpp"
#include "mpi/communicator.hpp"
#include "ps/protocol_settings.hpp"
#include "ps/push_validator.hpp"
#include "ps/sgd.hpp"
#include "ps/shard_layout.hpp"
#include "ps/ssp_gate.hpp"
#include "ps/staleness.hpp"
#include "ps/stall_watch.hpp"
#include "ps/topology.hpp"
#include "ps/transport/links.hpp"
#include "ps/transport/server_transports.hpp"

namespace psbench::ps {

/// What a server measured while serving (GateStats: what the bounded-staleness gate measured).
struct ServerStats : GateStats {
  std::uint64_t updates = 0;      ///< gradient pushes applied
  double service_seconds = 0.0;   ///< from a push's arrival to its reply (receive, apply, send or write into
                                  ///< a local worker's parameter area)
  double apply_seconds = 0.0;     ///< inside the optimizer only
  double idle_seconds = 0.0;      ///< waiting for the next message
  double serve_seconds = 0.0;     ///< whole serve() call
  double compress_seconds = 0.0;  ///< dequantizing compressed pushes (--compress onebit)
  StalenessHistogram staleness;   ///< staleness of every applied update
};

/// All workers' totals for one finished epoch, as seen by a server.
struct EpochProgress {
  std::uint32_t epoch = 0;       ///< the epoch that every worker has finished
  double mean_loss = 0.0;        ///< mean of the workers' step losses in that epoch
  std::uint64_t samples = 0;     ///< samples of all workers in that epoch
  double finished_at = 0.0;      ///< monotonic_seconds() when the last worker finished it
  double service_seconds = 0.0;  ///< this server's service time since serve() began, at that moment
  double idle_seconds = 0.0;     ///< this server's idle time since serve() began, at that moment
  std::uint64_t updates = 0;     ///< this server's updates since serve() began, at that moment
};

/// A server rank: owns one shard, applies each push as it arrives and answers with its fresh shard. The server holds
/// the protocol alone; how each worker's push and reply travel is its transport's (transport/): messages, the node's
/// shared window or MPI RMA. One chunk loop serves them all: chunk c is applied while chunk c + 1 arrives, and each
/// fresh chunk is written where the transport wants it (in the same pass as the update, for a worker's area in
/// shared memory) and handed on. No update starts before the previous reply is complete.
/// The server trusts no message: each push is checked (PushValidator) and a bad one ends the job with a
/// ProtocolError naming its sender; a worker silent for the stall timeout ends it with PeerStalled.
class Server {
 public:
  /// Collective over world (with every worker's WorkerClient): duplicates world for the protocol and takes
  /// shard topology.rank's slice of initial_parameters (the full P-vector, identical on all ranks); links name the
  /// workers reached by shared memory (the node's window, RMA); the others are reached by messages.
  /// delay_compensation, when given, is DC-ASGD's lambda (--delay-compensation): the server keeps, per worker, a
  /// copy of the shard as last sent to it (W copies, allocated here and initialised to the initial shard) and
  /// applies each push compensated (SgdOptimizer::apply_compensated_slice). settings: the staleness bound, the stall
  /// timeout and the spin budget.
  Server(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
         std::span<const float> initial_parameters, SgdConfig config, Links links = {},
         std::optional<float> delay_compensation = std::nullopt, ProtocolSettings settings = {});
  /// Before serve(), with --compress onebit: every push carries the shard's gradient quantized per column of
  /// columns (the shard's own, from shard_columns()), first_word words into the worker's packed gradient, which the
  /// server dequantizes before its chunk loop and applies as it would the floats. Allocates a shard of floats here.
  void take_compressed_pushes(compress::ColumnLayout columns, std::size_t first_word);
  /// Refuses pushes of more than max_samples samples (the batch size).
  void limit_samples(std::uint32_t max_samples) { validator_.limit_samples(max_samples); }
  /// Sets a function called after each applied update with the updates so far (fault injection).
  void set_update_hook(std::function<void(std::uint64_t)> hook) { update_hook_ = std::move(hook); }
  /// Sets a function called after each gradient push is answered, applied or (once stopping) not, with its
  /// sender's world rank and header: checkpoints count the workers' steps with it.
  void set_push_observer(std::function<void(int, const PushHeader&)> observer) { push_observer_ = std::move(observer); }
  /// Before serve(), resuming from a checkpoint: restores the shard's optimizer velocity (its slice of the
  /// saved vector) and the epoch of each worker's next push.
  void resume(std::span<const float> velocity, std::span<const std::uint32_t> worker_epochs);
  /// Updates applied so far in this run (the shard's version).
  [[nodiscard]] std::uint64_t version() const { return version_; }
  /// True once a worker has aborted the run: the shard changes no more.
  [[nodiscard]] bool stopping() const { return stopping_; }
  /// The shard's optimizer velocity (empty for plain SGD).
  [[nodiscard]] std::span<const float> velocity() const { return optimizer_.velocity(); }
  /// Serves until every worker has sent done or abort; calls on_epoch (if set) when all workers finish an
  /// epoch. After an abort it applies nothing and answers each push with kAbortedVersion.
  ServerStats serve(const std::function<void(const EpochProgress&)>& on_epoch = {});
  /// After serve(): sends the final shard to the worker at world rank worker_rank, which receives every
  /// server's with WorkerClient::receive_final_shards.
  void send_final_shard(int worker_rank);
  /// This server's shard of the parameters.
  [[nodiscard]] std::span<const float> shard() const { return weights_; }
  /// Bytes of the per-worker copies that delay compensation keeps (W x shard floats; 0 without it).
  [[nodiscard]] std::uint64_t delay_compensation_bytes() const {
    return compensate_ ? sent_storage_.span().size_bytes() : 0;
  }
  /// With delay compensation: worker index worker's copy of the shard, as last sent to it (empty without it).
  [[nodiscard]] std::span<const float> sent_to(std::size_t worker) const { return sent_copy(worker); }

 private:
  /// Waits for the next push from any transport, looking at them in turn (the one after the last served first, so
  /// that none starves the others), or asleep on the doorbell where one transport with a doorbell serves every worker
  /// and waits sleep; throws PeerStalled when watch finds a worker silent too long. Returns the sender's world rank.
  int wait_for_push(const SilenceWatch& watch);
  /// The header of source's push, taken from the transport that found it and checked (source may be any rank).
  PushHeader take_header(int source);
  /// Takes source's gradient in chunk by chunk and applies it (unless stopping); with answer, replies with each fresh
  /// chunk as it is done (else the reply is held: release() sends it later).
  void serve_push(int source, ServerStats& stats, bool answer);
  /// Sends a held reply to worker index worker: the shard as it is now.
  void release(std::size_t worker);
  /// The version a reply carries now.
  [[nodiscard]] std::uint64_t reply_version() const { return stopping_ ? kAbortedVersion : version_; }
  /// Delay compensation: the worker index's copy of the shard as last sent to it (empty without it).
  [[nodiscard]] std::span<float> sent_copy(std::size_t worker) const {
    if (!compensate_) return {};
    return sent_storage_.span().subspan(worker * weights_.size(), weights_.size());
  }
  /// Applies values [offset, offset + gradients.size()) of worker's push, compensated when delay compensation is
  /// on; refresh: the reply goes out now (the worker's copy becomes the fresh values); copy: also written there.
  void apply_chunk(std::size_t worker, std::size_t offset, std::span<const float> gradients, bool refresh,
                   std::span<float> copy);

  mpi::Communicator comm_;  // this server's duplicate of world: the protocol's messages only
  Topology topology_;
  ProtocolSettings settings_;
  PushValidator validator_;
  std::function<void(std::uint64_t)> update_hook_;
  std::function<void(int, const PushHeader&)> push_observer_;
  bool stopping_ = false;      // a worker aborted: apply nothing more, answer kAbortedVersion
  AlignedBuffer own_weights_;  // the shard (aligned, as every buffer MPI copies in bulk: aligned_buffer.hpp)
  std::span<float> weights_;
  ServerTransports transports_;
  std::size_t next_transport_ = 0;          // the transport the next wait looks at first
  ServerTransport* arrived_via_ = nullptr;  // the transport that found the latest push
  SgdOptimizer optimizer_;
  std::uint64_t version_ = 0;
  SspGate gate_;
  // Delay compensation (DC-ASGD): lambda, and per worker index the shard as last sent to it (W x shard values,
  // allocated at construction; empty without it).
  bool compensate_ = false;
  float lambda_ = 0.0F;
  AlignedBuffer sent_storage_;
  // Compressed pushes (take_compressed_pushes): the shard's columns, where its words start, and a push's floats.
  std::optional<compress::ColumnLayout> columns_;
  std::size_t first_word_ = 0;
  AlignedBuffer dequantized_{0};
};

}  // namespace psbench::ps
