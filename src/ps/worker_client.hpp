#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "common/phase_timer.hpp"
#include "compress/column_layout.hpp"
#include "mpi/communicator.hpp"
#include "ps/protocol.hpp"
#include "ps/protocol_settings.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"
#include "ps/transport/links.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// Worker side of the protocol: pushes every gradient shard to its server and pulls the fresh shard into the
/// parameter vector. How each push and reply travel is the path's (transport/): messages (no copies: MPI reads and
/// writes the model's own buffers), the node's shared window (the server reads the gradient where the model left it
/// and writes its fresh shard into this worker's parameter area, reply_parameters(), from which this worker copies
/// each chunk into its parameters as it is published, or copies nothing where the parameters are that area), or MPI
/// RMA. Where every path can sleep (every server shares the node) and waits do not spin, the worker sleeps in the
/// kernel until its replies are written. Each reply is checked (size, version ahead of the push) and a bad one ends
/// the job with a ProtocolError naming the server; a server silent for the stall timeout ends it with PeerStalled.
///
/// Pipelined (a client built with pipeline = true, CNTK's UsePipeline): push_pull_pipelined() first takes the
/// previous step's replies into the parameters (waiting for them), then starts this step's push and pull and
/// returns at once, so the caller computes the next step on the weights it has while the exchange travels.
/// The gradient is copied first (each shard whose path sends it from the caller's memory into a send buffer of the
/// client's, each local one into the window), so the caller may overwrite it at once; replies by message land in a
/// reply buffer of the client's and the others in their transport's area, never in the caller's parameters while it
/// computes. Each push carries the versions of the weights its gradient was computed from: those in the parameters
/// when push_pull_pipelined() is called, one step older than without the pipeline. Both buffers are allocated once,
/// at construction. --compress onebit works on every path, with or without the pipeline.
class WorkerClient {
 public:
  /// Collective over world (with every server's Server): duplicates world for the protocol; prepares a path to
  /// every server (links: the shared memory its transports use); allocates nothing later.
  /// With pipeline, allocates the send and reply buffers of push_pull_pipelined() (P values each, where some
  /// server is reached by messages). settings: the staleness bound (replies may be held), the stall timeout and the
  /// spin budget.
  WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout, Links links = {},
               bool pipeline = false, ProtocolSettings settings = {});
  /// With --compress onebit, before the first push: each push quantizes the gradient per column of columns (the
  /// model's, cut at the shards: cut_at_shards()) with this worker's residual (none without error_feedback), timed as
  /// Phase::kCompress, and hands each server its shard's packed form; the pull stays full precision. Allocates the
  /// packed gradient and the residual here.
  void compress_pushes(compress::ColumnLayout columns, bool error_feedback);
  /// One step's exchange: sends gradients' shards tagged with the versions last pulled (step gives the
  /// header's loss, epoch, samples and end of epoch; its kind and version are set here), then receives the
  /// fresh shards into parameters; adds the send time to Phase::kPush and the rest to Phase::kPull.
  /// gradients must stay untouched until this returns (it does, the call blocks). With a link, gradients
  /// outside the link's window (a scaled or remainder-batch gradient) are first copied into it. For
  /// servers reached by mailbox nothing is sent: their whole exchange is timed as Phase::kPull.
  void push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                 PhaseTimer& timer);
  /// Pipelined step (a client built with pipeline): completes the exchange in flight, if any (waits for its
  /// replies and copies the fresh shards into parameters: Phase::kPull), then starts a push of gradients, tagged
  /// with the versions parameters held when this was called, and the pull of its replies into the client's own
  /// buffers (Phase::kPush: copying and posting), and returns without waiting for them. gradients may change as
  /// soon as this returns; parameters must not be the reply area (reply_parameters()). Where gradients are the
  /// window's own gradient area (a model that computes into it), local servers read it in place, so their replies
  /// are awaited before this returns (Phase::kPull; they still reach parameters only at the next call): only the
  /// remote servers' exchange then overlaps the caller's compute. Skips the push when the completed replies say
  /// the run is stopping (versions() holds kAbortedVersion).
  /// With in_place, the caller promises to call release_gradients() before it writes gradients again: nothing
  /// is copied (the remote shards go out of gradients itself, local servers read the window in place) and the
  /// local servers' replies are not awaited here either, so the whole exchange overlaps the caller's compute.
  void push_pull_pipelined(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                           PhaseTimer& timer, bool in_place = false);
  /// After an in-place push_pull_pipelined(): waits until the exchange in flight no longer reads the gradients
  /// it was started from (its sends are complete, and local servers that read the window in place have written
  /// their replies, so they are done reading); Phase::kPush. A no-op when nothing is held.
  void release_gradients(PhaseTimer& timer);
  /// Completes the pipelined exchange in flight, if any: waits for its replies and copies the fresh shards into
  /// parameters (Phase::kPull). Call before finish().
  void complete(std::span<float> parameters, PhaseTimer& timer);
  /// True while a pipelined exchange has started and not been completed.
  [[nodiscard]] bool in_flight() const { return in_flight_; }
  /// Lets MPI move the messages of the exchange in flight (tests its requests; never waits): a worker that
  /// computes between the start of an exchange and its completion calls it now and then, so that a remote
  /// server's reply is taken while the worker computes (an MPI library moves a large message only inside
  /// its calls) and the server, which waits for its reply's sends, goes on to the next push.
  void progress();
  /// True while the exchange in flight has not wholly arrived: a push not yet left, or a reply not yet in.
  [[nodiscard]] bool awaiting_messages() const;
  /// Tells every server this worker has finished (kDone), or that its run diverged (kAbort); call once,
  /// after the last push_pull (and complete()).
  void finish(PushKind kind = PushKind::kDone);
  /// After finish(), on the worker every Server::send_final_shard names: receives each server's final shard
  /// into its range of parameters.
  void receive_final_shards(std::span<float> parameters);
  /// The parameter area local servers write their fresh shards into (P values; empty without a local
  /// server): passed as push_pull's parameters, the replies land in place and nothing is copied.
  [[nodiscard]] std::span<float> reply_parameters() const { return shared_parameters_; }
  /// Versions of each shard as last pulled (taken into the parameters).
  [[nodiscard]] const std::vector<std::uint64_t>& versions() const { return versions_; }
  /// Summed over the exchanges so far: wall_s from each push's start to the moment its replies were in the
  /// parameters, wait_s the part of it the caller was inside push_pull, push_pull_pipelined or complete (the
  /// whole exchange without the pipeline).
  struct Timing {
    double wall_s = 0.0;  ///< seconds
    double wait_s = 0.0;  ///< seconds
  };
  /// The exchanges' wall and blocked time so far.
  [[nodiscard]] Timing timing() const { return timing_; }
  /// Bytes this worker has handed over so far, to every server together: headers and shards of its pushes
  /// (a compressed push's packed columns) and of the replies, its done or abort headers and the final shards, whether
  /// they went by MPI message or through the shared window's mailboxes (where the server reads the gradient and writes
  /// the reply).
  struct Traffic {
    std::uint64_t sent = 0;      ///< bytes
    std::uint64_t received = 0;  ///< bytes
  };
  /// The bytes counted so far.
  [[nodiscard]] Traffic traffic() const { return traffic_; }

 private:
  /// Starts one push of gradients tagged with versions: each path that takes its push in at once reads gradients,
  /// the others their shard of sources (gradients, or the send buffer gradients were copied into); each lands its reply
  /// in replies (the parameters, or the reply buffer) unless it has an area of its own.
  void start(std::span<const float> gradients, std::span<const float> sources, std::span<float> replies,
             std::span<const std::uint64_t> versions, const PushHeader& step);
  /// With compressed pushes: quantizes gradients into the packed gradient (Phase::kCompress).
  void quantize(std::span<const float> gradients, PhaseTimer& timer);
  /// The one stall-watched wait: lets every path move until done() holds; asleep on the paths' reply counters in
  /// turn where every path has one and waits do not spin. Notes when every push has left (pushed_at_). Throws
  /// PeerStalled naming the first server whose reply is not in after the reply timeout from start.
  template <typename Done>
  void wait(double start, Done&& done);
  /// Takes the replies in: checks each (throws ProtocolError naming the server) and records its version.
  void take_replies();
  /// True once every push has left this worker (recording when, the first time).
  bool all_pushed();

  mpi::Communicator comm_;  // this worker's duplicate of world: the protocol's messages only
  Topology topology_;
  ShardLayout layout_;
  ProtocolSettings settings_;
  std::vector<std::unique_ptr<ServerPath>> paths_;  // per server
  std::vector<std::uint64_t> versions_;
  std::vector<std::uint64_t> pushed_versions_;  // per server: the version the push in flight carries
  std::span<float> shared_parameters_;          // the area servers on this node write their replies into
  bool all_sleep_ = false;                      // every path has a reply counter to sleep on
  // Compressed pushes (compress_pushes): the columns cut at the shards, shard k's words from shard_words_[k], the
  // packed gradient and the residual (empty without error feedback).
  std::optional<compress::ColumnLayout> columns_;
  std::vector<std::size_t> shard_words_;
  std::vector<std::uint32_t> packed_;
  AlignedBuffer residual_{0};

  double pushed_at_ = 0.0;  // when the exchange in progress had left this worker (0: not yet)
  // Pipelined exchanges (allocated once; empty without the pipeline, or where no path reads the caller's memory).
  bool pipeline_ = false;
  AlignedBuffer send_buffer_;                     // shards of the gradient in flight that a path reads in place
  const float* gradients_held_ = nullptr;         // the caller's gradients, which the exchange in flight reads
  AlignedBuffer reply_buffer_;                    // shards of its replies by message
  std::vector<std::uint64_t> computed_versions_;  // the versions the gradient being pushed was computed from
  bool in_flight_ = false;
  double started_at_ = 0.0;  // when the exchange in flight started
  Timing timing_;
  Traffic traffic_;
};

}  // namespace psbench::ps
