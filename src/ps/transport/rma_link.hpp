#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mpi/call_watchdog.hpp"
#include "mpi/communicator.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// The MPI one-sided (RMA) windows of a run: one window over the job (MPI_Win_allocate, passive target, locked for
/// every rank for the whole run with MPI_Win_lock_all), in which every server exposes a slot per worker that reaches
/// it by RMA, and every such worker an area per server. A worker puts its push (header and gradient) into its slot of
/// the server's memory and then, once a flush has made them complete there, raises the slot's sequence number with an
/// atomic MPI_Accumulate; the server puts each fresh chunk into the worker's area and, after a flush, raises the
/// area's count of chunks ready. Each side polls its own memory (MPI_Win_sync, then an atomic load), since a remote
/// write wakes no sleeper.
class RmaLink {
 public:
  /// A slot in a server's memory: [0, 8) the push's sequence number, [64, 64 + sizeof(PushHeader)) its header, from
  /// kSlotData the gradient (floats, or packed words).
  static constexpr std::size_t kSlotData = 128;
  /// An area in a worker's memory: [0, 8) the count of reply chunks ready, [8, 16) the reply's version, from
  /// kAreaData the fresh shard.
  static constexpr std::size_t kAreaData = 64;

  /// Collective over world: decides which (worker, server) pairs use RMA (same node as node says, the ranks of
  /// world sharing this rank's memory: intra; else inter) and, where any does, allocates the window with room for
  /// packed_words words of a compressed gradient (--compress onebit; 0 without). Where the MPI library has no
  /// one-sided component that works here, every rank throws UserError naming what is missing, before training. A
  /// flush that waits stall_timeout_s (--stall-timeout; 0: forever) on a silent peer ends the job naming the peer.
  RmaLink(const mpi::Communicator& world, const mpi::Communicator& node, const Topology& topology,
          const ShardLayout& layout, Transport intra, Transport inter, std::size_t packed_words = 0,
          double stall_timeout_s = 0.0);
  /// Collective: unlocks and frees the window, except while an exception unwinds (the job is ending, and the other
  /// ranks may never join MPI_Win_free).
  ~RmaLink();
  RmaLink(const RmaLink&) = delete;
  RmaLink& operator=(const RmaLink&) = delete;

  /// Whether worker index worker and server shard talk by RMA.
  [[nodiscard]] bool serves(int worker, int shard) const;
  /// Whether any pair does (else no window was allocated).
  [[nodiscard]] bool any() const { return window_ != MPI_WIN_NULL; }
  /// Byte offset of worker's slot in server shard's memory.
  [[nodiscard]] std::size_t slot_offset(int worker, int shard) const;
  /// Byte offset of server shard's area in worker's memory.
  [[nodiscard]] std::size_t area_offset(int worker, int shard) const;
  /// This rank's own memory in the window.
  [[nodiscard]] std::span<std::byte> own() const { return own_; }
  /// The window.
  [[nodiscard]] MPI_Win window() const { return window_; }
  /// The link's own duplicate of the job's communicator (a probe on it lets the MPI library progress one-sided
  /// operations aimed at this rank; no message is ever sent on it).
  [[nodiscard]] MPI_Comm comm() const { return comm_.native(); }
  /// Lets the MPI library move one-sided operations (where it emulates them by messages, the target must call it)
  /// and makes this rank's memory show what others have put there.
  void progress() const;
  /// MPI_Win_flush to world rank target under the stall watch: the operations this rank started there are complete.
  void flush(int target) const;

 private:
  /// Bytes of a slot of server shard's memory.
  [[nodiscard]] std::size_t slot_bytes(int shard) const;
  /// Bytes of an area of server shard in a worker's memory.
  [[nodiscard]] std::size_t area_bytes(int shard) const;

  mpi::Communicator comm_;
  Topology topology_;
  ShardLayout layout_;
  std::size_t packed_words_;
  std::vector<char> pairs_;  // W x S: whether (worker, shard) talk by RMA
  MPI_Win window_ = MPI_WIN_NULL;
  std::span<std::byte> own_;
  mutable mpi::CallWatchdog watchdog_;  // over flushes: where the library carries them by messages, a stalled
                                        // target never completes one
};

}  // namespace psbench::ps
