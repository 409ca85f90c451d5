#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "mpi/wake_counter.hpp"
#include "ps/protocol.hpp"

namespace psbench::ps {

/// How a worker and a server reach each other: MPI messages, the node's shared window (same node only), or MPI
/// one-sided communication (RMA) into windows the peers expose.
enum class Transport { kMessages, kWindow, kRma };

/// A server's reach, one way, to the workers it serves that way: the server's protocol (server.hpp) drives it chunk
/// by chunk, so that a transport can overlap the arrival of chunk c + 1 with the update of chunk c, and can let the
/// update write each fresh chunk straight where its worker reads it. One push at a time: take_header, then the
/// gradient (gradient_chunk for chunks 0, 1, ... or packed_push), and, when the reply goes out now, begin_reply,
/// reply_area and chunk_done per chunk, reply_done. A held reply (--staleness) is sent later by the same reply calls.
class ServerTransport {
 public:
  virtual ~ServerTransport() = default;
  /// Looks once for a push from one of this transport's workers (never waits): its sender's world rank, or -1.
  [[nodiscard]] virtual int poll_push() = 0;
  /// The header of the push poll_push found from source; returns the bytes its sender announced (a header of any
  /// other size than PushHeader's is taken in and discarded, for the server to refuse).
  virtual std::size_t take_header(int source, PushHeader& header) = 0;
  /// Waits for gradient chunk `chunk` (chunks 0, 1, ... in turn) of source's push and returns its values; the
  /// previous chunk's values may be reused from then on.
  [[nodiscard]] virtual std::span<const float> gradient_chunk(int source, int chunk) = 0;
  /// Waits for source's compressed push (--compress onebit): words packed words, which start at word first_word of
  /// the worker's packed gradient (all shards'), and returns them.
  [[nodiscard]] virtual std::span<const std::uint32_t> packed_push(int source, std::size_t first_word,
                                                                   std::size_t words) = 0;
  /// Starts the reply to source: the shard's version after its push (or kAbortedVersion).
  virtual void begin_reply(int source, std::uint64_t version) = 0;
  /// Where the fresh values of reply chunk `chunk` may be written, in source's own memory (the update's pass then
  /// writes them there itself); empty (the default) where the transport sends them from the shard.
  [[nodiscard]] virtual std::span<float> reply_area(int /*source*/, int /*chunk*/) { return {}; }
  /// Reply chunk `chunk` is final: in reply_area, or else in shard_chunk (the server's own values of that chunk).
  virtual void chunk_done(int source, int chunk, std::span<const float> shard_chunk) = 0;
  /// The reply to source is whole; when this returns, the shard may change again.
  virtual void reply_done(int source) = 0;
  /// What an idle server may sleep on when this transport serves every worker (a node's doorbell), or nullptr.
  [[nodiscard]] virtual mpi::WakeCounter* doorbell() { return nullptr; }
};

/// A worker's path to one server: the client's protocol (worker_client.hpp) starts a push and its pull at once and
/// then polls until the reply is in the parameters.
class ServerPath {
 public:
  virtual ~ServerPath() = default;
  /// Starts a push with header: the server's shard of gradients (indexed like the parameters), or, when packed is
  /// not empty, those packed words instead (--compress onebit: the shard's, word first_word on of the worker's packed
  /// gradient); the reply lands in replies' shard (indexed like the
  /// parameters) where the transport has no reply area of its own.
  virtual void start(const PushHeader& header, std::span<const float> gradients, std::span<const std::uint32_t> packed,
                     std::size_t first_word, std::span<float> replies) = 0;
  /// Lets the exchange move (tests what is in flight; never waits).
  virtual void progress() = 0;
  /// True once the push has left this worker (nothing of it remains to be sent).
  [[nodiscard]] virtual bool pushed() const = 0;
  /// True while the push in flight still reads the vector starting at data (the caller may not overwrite it).
  [[nodiscard]] virtual bool reads(const float* data) const = 0;
  /// True once the whole reply has arrived (in replies or the transport's reply area).
  [[nodiscard]] virtual bool replied() const = 0;
  /// Moves what the reply has brought into parameters' shard (indexed like the parameters); true once all of it is
  /// there. Calls progress().
  virtual bool take_reply(std::span<float> parameters) = 0;
  /// Checks the whole reply's envelope (sizes; throws ProtocolError) and returns its shard version.
  [[nodiscard]] virtual std::uint64_t reply_version() const = 0;
  /// Tells the server this worker has finished: a header alone, kind kDone or kAbort.
  virtual void finish(const PushHeader& done) = 0;
  /// True where start() takes the push in before it returns, so that the caller's vectors are free at once.
  [[nodiscard]] virtual bool copies_push() const = 0;
  /// What a waiting worker may sleep on where every path has one (the reply counter of a node's window), or
  /// nullptr.
  [[nodiscard]] virtual mpi::WakeCounter* reply_counter() { return nullptr; }
};

}  // namespace psbench::ps
