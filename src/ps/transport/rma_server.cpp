#include "ps/transport/rma_server.hpp"

#include <atomic>
#include <cstring>

#include "mpi/call.hpp"

namespace psbench::ps {

RmaServer::RmaServer(const RmaLink& link, const Topology& topology, std::size_t shard_size)
    : link_(link),
      topology_(topology),
      shard_size_(shard_size),
      found_(static_cast<std::size_t>(topology.workers()), 0),
      served_(static_cast<std::size_t>(topology.workers()), 0),
      published_(static_cast<std::size_t>(topology.workers()), 0) {
  for (int w = 0; w < topology.workers(); ++w) {
    if (link.serves(w, topology.rank)) workers_.push_back(w);
  }
}

std::byte* RmaServer::slot(int source) const {
  return link_.own().data() + link_.slot_offset(topology_.worker_index_of(source), topology_.rank);
}

int RmaServer::poll_push() {
  link_.progress();  // the window shows what the workers have put (and emulated RMA moves)
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const std::size_t at = (next_ + i) % workers_.size();
    const int w = workers_[at];
    std::byte* const own = link_.own().data() + link_.slot_offset(w, topology_.rank);
    const std::uint64_t sequence =
        std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(own)).load(std::memory_order_acquire);
    if (sequence != served_[static_cast<std::size_t>(w)]) {
      next_ = at + 1;
      found_[static_cast<std::size_t>(w)] = sequence;
      return topology_.worker_rank(w);
    }
  }
  return -1;
}

std::size_t RmaServer::take_header(int source, PushHeader& header) {
  std::memcpy(&header, slot(source) + 64, sizeof header);
  const auto w = static_cast<std::size_t>(topology_.worker_index_of(source));
  served_[w] = found_[w];
  return sizeof header;
}

std::span<const float> RmaServer::gradient_chunk(int source, int chunk) {
  const auto [offset, count] = chunk_span(shard_size_, chunk);
  return {reinterpret_cast<const float*>(slot(source) + RmaLink::kSlotData) + offset, count};
}

std::span<const std::uint32_t> RmaServer::packed_push(int source, std::size_t /*first_word*/, std::size_t words) {
  return {reinterpret_cast<const std::uint32_t*>(slot(source) + RmaLink::kSlotData), words};
}

void RmaServer::begin_reply(int source, std::uint64_t version) {
  version_ = version;
  const int w = topology_.worker_index_of(source);
  const auto at = static_cast<MPI_Aint>(link_.area_offset(w, topology_.rank) + 8);
  PSBENCH_MPI_CALL(MPI_Put(&version_, 1, MPI_UINT64_T, source, at, 1, MPI_UINT64_T, link_.window()));
}

void RmaServer::chunk_done(int source, int chunk, std::span<const float> shard_chunk) {
  const int w = topology_.worker_index_of(source);
  const std::size_t area = link_.area_offset(w, topology_.rank);
  const auto offset = chunk_span(shard_size_, chunk).offset;
  PSBENCH_MPI_CALL(MPI_Put(shard_chunk.data(), static_cast<int>(shard_chunk.size()), MPI_FLOAT, source,
                           static_cast<MPI_Aint>(area + RmaLink::kAreaData + offset * sizeof(float)),
                           static_cast<int>(shard_chunk.size()), MPI_FLOAT, link_.window()));
  // The chunk (and the version before it) complete at the worker before the count that announces them changes; the
  // flush also completes the previous count's accumulate, so ready_ may be written again.
  link_.flush(source);
  ready_ = ++published_[static_cast<std::size_t>(w)];
  PSBENCH_MPI_CALL(MPI_Accumulate(&ready_, 1, MPI_UINT64_T, source, static_cast<MPI_Aint>(area), 1, MPI_UINT64_T,
                                  MPI_REPLACE, link_.window()));
}

void RmaServer::reply_done(int source) {
  // The last count completes at the worker; every put from the shard is complete, so the shard may change.
  link_.flush(source);
}

}  // namespace psbench::ps
