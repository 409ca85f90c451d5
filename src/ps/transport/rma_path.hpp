#pragma once

#include <cstdint>
#include <span>

#include "ps/topology.hpp"
#include "ps/transport/rma_link.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A worker's path to one server by MPI one-sided communication (RmaLink): a push puts its header and its gradient
/// (or packed words) into this worker's slot of the server's memory, flushes them there, and then raises the slot's
/// sequence number with an atomic accumulate, flushed too: the push has left when start() returns. The server puts
/// the reply into this worker's area chunk by chunk, raising the area's count of chunks ready after each (once the
/// chunk is complete here), and this path copies each chunk into the parameters as the count shows it.
class RmaPath final : public ServerPath {
 public:
  /// To server `shard` (whose values start at begin and number size), for the worker of topology, through link.
  RmaPath(const RmaLink& link, const Topology& topology, int shard, std::size_t begin, std::size_t size);
  void start(const PushHeader& header, std::span<const float> gradients, std::span<const std::uint32_t> packed,
             std::size_t first_word, std::span<float> replies) override;
  void progress() override { link_.progress(); }
  [[nodiscard]] bool pushed() const override { return true; }
  [[nodiscard]] bool reads(const float* /*data*/) const override { return false; }
  [[nodiscard]] bool replied() const override;
  bool take_reply(std::span<float> parameters) override;
  [[nodiscard]] std::uint64_t reply_version() const override;
  void finish(const PushHeader& done) override;
  [[nodiscard]] bool copies_push() const override { return true; }

 private:
  /// Puts header into the slot and raises its sequence number, once everything put before is complete there.
  void announce(const PushHeader& header);
  /// The area's count of reply chunks ready, as this rank's memory shows it now.
  [[nodiscard]] std::uint64_t chunks_ready() const;

  const RmaLink& link_;
  int server_;
  std::size_t begin_;
  std::size_t size_;
  MPI_Aint slot_;    // this worker's slot in the server's memory
  std::byte* area_;  // the server's area in this worker's memory
  PushHeader header_;
  std::uint64_t sequence_ = 0;  // pushes so far, accumulated from here
  std::uint64_t replies_ = 0;   // gradient pushes so far
  std::uint64_t copied_ = 0;    // reply chunks copied out so far, all replies
};

}  // namespace psbench::ps
