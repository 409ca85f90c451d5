#include "ps/transport/rma_path.hpp"

#include <algorithm>
#include <atomic>

#include "mpi/call.hpp"

namespace psbench::ps {

RmaPath::RmaPath(const RmaLink& link, const Topology& topology, int shard, std::size_t begin, std::size_t size)
    : link_(link),
      server_(topology.server_rank(shard)),
      begin_(begin),
      size_(size),
      slot_(static_cast<MPI_Aint>(link.slot_offset(topology.worker_index(), shard))),
      area_(link.own().data() + link.area_offset(topology.worker_index(), shard)) {}

void RmaPath::start(const PushHeader& header, std::span<const float> gradients, std::span<const std::uint32_t> packed,
                    std::size_t /*first_word*/, std::span<float> /*replies*/) {
  const MPI_Aint data = slot_ + static_cast<MPI_Aint>(RmaLink::kSlotData);
  if (!packed.empty()) {
    PSBENCH_MPI_CALL(MPI_Put(packed.data(), static_cast<int>(packed.size()), MPI_UINT32_T, server_, data,
                             static_cast<int>(packed.size()), MPI_UINT32_T, link_.window()));
  } else {
    PSBENCH_MPI_CALL(MPI_Put(gradients.data() + begin_, static_cast<int>(size_), MPI_FLOAT, server_, data,
                             static_cast<int>(size_), MPI_FLOAT, link_.window()));
  }
  ++replies_;
  announce(header);
}

void RmaPath::announce(const PushHeader& header) {
  header_ = header;
  PSBENCH_MPI_CALL(
      MPI_Put(&header_, sizeof header_, MPI_BYTE, server_, slot_ + 64, sizeof header_, MPI_BYTE, link_.window()));
  // Order between puts is not guaranteed: the push completes at the server before its sequence number changes.
  link_.flush(server_);
  ++sequence_;
  PSBENCH_MPI_CALL(
      MPI_Accumulate(&sequence_, 1, MPI_UINT64_T, server_, slot_, 1, MPI_UINT64_T, MPI_REPLACE, link_.window()));
  link_.flush(server_);
}

std::uint64_t RmaPath::chunks_ready() const {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(area_)).load(std::memory_order_acquire);
}

bool RmaPath::replied() const { return chunks_ready() >= replies_ * static_cast<std::uint64_t>(chunk_count(size_)); }

bool RmaPath::take_reply(std::span<float> parameters) {
  const auto chunks = static_cast<std::uint64_t>(chunk_count(size_));
  const std::uint64_t wanted = replies_ * chunks;
  if (copied_ == wanted) return true;
  link_.progress();  // this rank's memory shows what the server has put
  const std::uint64_t ready = std::min(chunks_ready(), wanted);
  const auto* fresh = reinterpret_cast<const float*>(area_ + RmaLink::kAreaData);
  for (; copied_ < ready; ++copied_) {
    const auto [offset, count] = chunk_span(size_, static_cast<int>(copied_ % chunks));
    std::copy_n(fresh + offset, count, parameters.begin() + static_cast<std::ptrdiff_t>(begin_ + offset));
  }
  return copied_ == wanted;
}

std::uint64_t RmaPath::reply_version() const {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(area_ + 8)).load(std::memory_order_acquire);
}

void RmaPath::finish(const PushHeader& done) { announce(done); }

}  // namespace psbench::ps
