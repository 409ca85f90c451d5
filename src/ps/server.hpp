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
#include "mpi/request_set.hpp"
#include "ps/node_link.hpp"
#include "ps/push_validator.hpp"
#include "ps/sgd.hpp"
#include "ps/shard_layout.hpp"
#include "ps/staleness.hpp"
#include "ps/stall_watch.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// What a server measured while serving.
struct ServerStats {
  std::uint64_t updates = 0;      ///< gradient pushes applied
  double service_seconds = 0.0;   ///< from a push's arrival to its reply (receive, apply, send or write into
                                  ///< a local worker's parameter area)
  double apply_seconds = 0.0;     ///< inside the optimizer only
  double idle_seconds = 0.0;      ///< waiting for the next message
  double serve_seconds = 0.0;     ///< whole serve() call
  double compress_seconds = 0.0;  ///< dequantizing compressed pushes (--compress onebit)
  StalenessHistogram staleness;   ///< staleness of every applied update
  // Bounded staleness (--staleness, Server::bound_staleness): a worker's clock is its gradient pushes so far.
  std::uint64_t held_replies = 0;              ///< replies held back by the bound (0 without it)
  double held_seconds = 0.0;                   ///< summed over held replies: from the push's update to the reply
  std::vector<double> held_seconds_by_worker;  ///< held_seconds per worker index (W entries)
  std::uint64_t max_clock_spread = 0;          ///< largest (max - min) clock of the workers not done, after each push
  std::uint64_t max_lead = 0;  ///< largest (own clock - min clock) of a worker when its reply went out (not
                               ///< counting the replies an abort released)
  std::uint64_t min_held_lead = UINT64_MAX;  ///< smallest (own clock - min clock) of a worker when its reply was held
  std::uint64_t overdue_holds = 0;  ///< replies found still held at a message's arrival though the bound allowed them
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

/// A server rank: owns one shard, applies each push as it arrives and answers with its fresh shard. A
/// remote worker's exchange is pipelined in chunks (protocol.hpp): chunk c is applied and sent back while
/// later chunks of the gradient are still arriving, into a ring of chunk buffers that stays in the cache.
/// A worker on this node (through link) is served in shared memory: the update reads its gradient in place
/// and writes each fresh chunk into the worker's parameter area in the same pass, so such a reply never
/// makes the server wait for its worker. No update starts before every earlier reply by messages has been
/// sent (its sends complete).
/// The server trusts no message: each push is checked (PushValidator) and a bad one ends the job with a
/// ProtocolError naming its sender; a worker silent for the stall timeout ends it with PeerStalled.
class Server {
 public:
  /// Collective over world (with every worker's WorkerClient): duplicates world for the protocol and takes
  /// shard topology.rank's slice of initial_parameters (the full P-vector, identical on all ranks); link,
  /// when given, names the workers served in shared memory.
  /// delay_compensation, when given, is DC-ASGD's lambda (--delay-compensation): the server keeps, per worker, a
  /// copy of the shard as last sent to it (W copies, allocated here and initialised to the initial shard) and
  /// applies each push compensated (SgdOptimizer::apply_compensated_slice).
  Server(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
         std::span<const float> initial_parameters, SgdConfig config, const NodeLink* link = nullptr,
         std::optional<float> delay_compensation = std::nullopt);
  /// Before serve(), with --compress onebit: every push carries the shard's gradient quantized per column of
  /// columns (the shard's own, from shard_columns()) in one message, which the server dequantizes and applies as it
  /// would the floats. Allocates the packed message and a shard of floats here.
  void take_compressed_pushes(compress::ColumnLayout columns);
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
  /// Bounded staleness (SSP, --staleness): the reply to a worker's push that brought its clock (gradient pushes
  /// so far) to c is held until every worker not done has clock >= c - bound; the push itself is applied at once,
  /// and the held reply carries the shard as it is when released. Negative: unbounded (the default). Before serve().
  void bound_staleness(int bound) { bound_ = bound; }
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
  /// A push found by wait_for_push: its sender, and its index in local_ when it came through a mailbox.
  struct Arrival {
    int source = 0;
    std::size_t local = kRemote;
    std::uint64_t sequence = 0;
    MPI_Status status{};  // a remote push's probed header
  };
  static constexpr std::size_t kRemote = static_cast<std::size_t>(-1);

  /// Waits for the next push, from a local worker's mailbox or a remote worker's message, with backoff (or,
  /// when every worker is local, asleep on the doorbell where waits sleep); throws PeerStalled when watch
  /// finds a worker silent too long.
  Arrival wait_for_push(const SilenceWatch& watch);
  /// The header of arrival, received (or read from its mailbox) and checked.
  PushHeader receive_header(const Arrival& arrival);
  /// Takes arrival's gradient in and (with answer; else the reply is held) answers it, by messages or in shared
  /// memory, once earlier replies are out.
  void reply(const Arrival& arrival, ServerStats& stats, bool answer);
  /// Waits for gradient chunk number chunk (in ring slot) from source and checks it holds count values.
  void wait_for_chunk(int source, int chunk, std::size_t slot, std::size_t count);
  /// Receives a compressed push's one message from source and dequantizes it into dequantized_.
  void receive_compressed(int source, ServerStats& stats);
  /// Starts the receive of gradient chunk number chunk from source into its ring slot.
  void receive_chunk(int source, int chunk);
  /// Applies a remote worker's gradient chunk by chunk as it arrives and (with answer) sends each fresh chunk back.
  void serve_by_messages(int source, ServerStats& stats, bool answer);
  /// Applies a local worker's gradient chunk by chunk and (with answer) writes each fresh chunk into its
  /// parameter area and publishes it in its mailbox.
  void serve_in_shared_memory(std::size_t local, ServerStats& stats, bool answer);
  /// Sends a held reply: the shard as it is now, by messages or into the worker's parameter area.
  void release(std::size_t worker, ServerStats& stats);
  /// Releases every held reply the bound allows now (all of them once stopping).
  void release_allowed(ServerStats& stats);
  /// The smallest clock of the workers not done (UINT64_MAX when every worker is done).
  [[nodiscard]] std::uint64_t min_clock() const;
  /// Counts the held replies the bound already allows (ServerStats::overdue_holds: none, when each is released as
  /// soon as it may be).
  void note_overdue_holds(ServerStats& stats) const;
  /// Notes the clocks' spread after a push (ServerStats::max_clock_spread).
  void note_spread(ServerStats& stats) const;
  /// Delay compensation: the worker index's copy of the shard as last sent to it (empty without it).
  [[nodiscard]] std::span<float> sent_copy(std::size_t worker) const {
    if (!compensate_) return {};
    return sent_storage_.span().subspan(worker * weights_.size(), weights_.size());
  }
  /// Applies values [offset, offset + gradients.size()) of worker's push, compensated when delay compensation is
  /// on; refresh: the reply goes out now (the worker's copy becomes the fresh values); copy: also written there.
  void apply_chunk(std::size_t worker, std::size_t offset, std::span<const float> gradients, bool refresh,
                   std::span<float> copy = {});

  mpi::Communicator comm_;  // this server's duplicate of world: the protocol's messages only
  Topology topology_;
  PushValidator validator_;
  std::function<void(std::uint64_t)> update_hook_;
  std::function<void(int, const PushHeader&)> push_observer_;
  bool stopping_ = false;      // a worker aborted: apply nothing more, answer kAbortedVersion
  AlignedBuffer own_weights_;  // the shard (aligned, as every buffer MPI copies in bulk: aligned_buffer.hpp)
  std::span<float> weights_;
  AlignedBuffer gradient_;  // ring of received gradient chunks (kRingChunks at most)
  mpi::RequestSet chunk_receives_;
  mpi::RequestSet chunk_sends_;
  std::size_t shard_begin_;
  std::vector<LocalWorker> local_;
  std::vector<std::uint64_t> served_;  // per local worker, the sequence number last answered
  Doorbell* doorbell_ = nullptr;       // where local workers ring after each push (with link only)
  std::size_t next_local_ = 0;         // where the next mailbox scan starts (round robin)
  bool remote_first_ = false;          // whether the next wait probes for messages before mailboxes
  SgdOptimizer optimizer_;
  std::uint64_t version_ = 0;
  // Bounded staleness: per worker index (sized at construction; nothing is allocated per step).
  int bound_ = -1;                     // --staleness s; negative: unbounded
  std::vector<std::uint64_t> clocks_;  // gradient pushes received
  std::vector<char> done_;             // sent done or abort: counts as infinitely far ahead
  std::vector<char> held_;             // its latest push's reply is held
  std::vector<Arrival> held_arrival_;  // where to send it (source, mailbox)
  std::vector<double> held_since_;     // when it was held
  // Delay compensation (DC-ASGD): lambda, and per worker index the shard as last sent to it (W x shard values,
  // allocated at construction; empty without it).
  bool compensate_ = false;
  float lambda_ = 0.0F;
  AlignedBuffer sent_storage_;
  // Compressed pushes (take_compressed_pushes): the shard's columns, a push's packed form and its floats.
  std::optional<compress::ColumnLayout> columns_;
  std::vector<std::uint32_t> packed_;
  AlignedBuffer dequantized_{0};
};

}  // namespace psbench::ps
