#include "ps/transport/rma_link.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "common/error.hpp"
#include "mpi/call.hpp"
#include "ps/stall_watch.hpp"

namespace psbench::ps {
namespace {

constexpr std::size_t round_to_line(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

// The world rank that leads each rank's node (its node's rank 0), for every rank of world.
std::vector<int> node_leaders(const mpi::Communicator& world, const mpi::Communicator& node) {
  int leader = world.ranks_of(node).front();
  std::vector<int> leaders(static_cast<std::size_t>(world.size()));
  PSBENCH_MPI_CALL(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, world.native()));
  return leaders;
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace

RmaLink::RmaLink(const mpi::Communicator& world, const mpi::Communicator& node, const Topology& topology,
                 const ShardLayout& layout, Transport intra, Transport inter, std::size_t packed_words,
                 double stall_timeout_s)
    : comm_(world.duplicate()),
      topology_(topology),
      layout_(layout),
      packed_words_(packed_words),
      pairs_(static_cast<std::size_t>(topology.workers()) * static_cast<std::size_t>(topology.servers), 0),
      // A worker's peer is a server, whose shard is its world rank (Topology::server_rank).
      watchdog_(stall_timeout_s, [topology, stall_timeout_s](int peer, double seconds) {
        return topology.is_server()
                   ? unread_reply_message(topology.rank, topology.worker_index_of(peer), peer, seconds, stall_timeout_s)
                   : silent_server_message(topology.rank, peer, peer, seconds, stall_timeout_s);
      }) {
  const std::vector<int> leaders = node_leaders(world, node);
  bool any_pair = false;
  for (int w = 0; w < topology.workers(); ++w) {
    for (int k = 0; k < topology.servers; ++k) {
      const bool same_node = leaders[static_cast<std::size_t>(topology.worker_rank(w))] ==
                             leaders[static_cast<std::size_t>(topology.server_rank(k))];
      const bool rma = (same_node ? intra : inter) == Transport::kRma;
      pairs_[static_cast<std::size_t>(w * topology.servers + k)] = rma ? 1 : 0;
      any_pair = any_pair || rma;
    }
  }
  if (!any_pair) return;
  std::size_t bytes = 0;
  if (topology.is_server()) {
    for (int w = 0; w < topology.workers(); ++w) bytes += serves(w, topology.rank) ? slot_bytes(topology.rank) : 0;
  } else {
    for (int k = 0; k < topology.servers; ++k) bytes += serves(topology.worker_index(), k) ? area_bytes(k) : 0;
  }
  void* base = nullptr;
  const int code = MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, comm_.native(), &base, &window_);
  int ok = code == MPI_SUCCESS ? 1 : 0;
  PSBENCH_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_.native()));
  if (ok == 0) {
    const std::string why = code != MPI_SUCCESS ? mpi_error_text(code) : "it failed on another rank";
    window_ = MPI_WIN_NULL;  // not freed: a rank where it failed never joins MPI_Win_free
    throw UserError(
        "rma (--intra-node or --inter-node) needs MPI one-sided communication, and MPI_Win_allocate "
        "failed (" +
        why +
        "): this MPI library has no one-sided component that works between these "
        "ranks (Open MPI: `ompi_info | grep osc` lists them, --mca osc_base_verbose 10 shows the choice; over "
        "TCP name one, e.g. --mca osc sm,pt2pt); use messages instead");
  }
  own_ = {static_cast<std::byte*>(base), bytes};
  for (std::size_t i = 0; i < bytes; ++i) own_[i] = std::byte{0};
  PSBENCH_MPI_CALL(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_));
  // Every rank's memory is zeroed and locked before any rank puts into it.
  PSBENCH_MPI_CALL(MPI_Win_sync(window_));
  comm_.barrier();
}

RmaLink::~RmaLink() {
  if (window_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  if (MPI_Win_unlock_all(window_) != MPI_SUCCESS || MPI_Win_free(&window_) != MPI_SUCCESS) {
    std::fprintf(stderr, "psbench: warning: freeing the RMA window failed\n");
  }
}

bool RmaLink::serves(int worker, int shard) const {
  return pairs_[static_cast<std::size_t>(worker * topology_.servers + shard)] != 0;
}

std::size_t RmaLink::slot_bytes(int shard) const {
  return kSlotData +
         round_to_line(std::max(layout_.size(shard) * sizeof(float), packed_words_ * sizeof(std::uint32_t)));
}

std::size_t RmaLink::area_bytes(int shard) const {
  return kAreaData + round_to_line(layout_.size(shard) * sizeof(float));
}

std::size_t RmaLink::slot_offset(int worker, int shard) const {
  std::size_t offset = 0;
  for (int w = 0; w < worker; ++w) offset += serves(w, shard) ? slot_bytes(shard) : 0;
  return offset;
}

std::size_t RmaLink::area_offset(int worker, int shard) const {
  std::size_t offset = 0;
  for (int k = 0; k < shard; ++k) offset += serves(worker, k) ? area_bytes(k) : 0;
  return offset;
}

void RmaLink::progress() const {
  int found = 0;
  PSBENCH_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_.native(), &found, MPI_STATUS_IGNORE));
  PSBENCH_MPI_CALL(MPI_Win_sync(window_));
}

void RmaLink::flush(int target) const {
  watchdog_.run(target, [&] { PSBENCH_MPI_CALL(MPI_Win_flush(target, window_)); });
}

}  // namespace psbench::ps
