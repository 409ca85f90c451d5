#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ps/transport/node_link.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A server's reach to the workers of its node through the node's shared window (NodeLink): a push is found in the
/// worker's mailbox, its gradient read where the worker's backward pass left it, and the update writes each fresh
/// chunk straight into the worker's parameter area, publishing it in the mailbox's chunks_ready, so that a reply
/// never makes the server wait for its worker.
class WindowServer final : public ServerTransport {
 public:
  /// For server `shard`, whose values start at shard_begin of the parameters and number shard_size, serving
  /// workers (its node's, from link).
  WindowServer(std::vector<LocalWorker> workers, Doorbell* doorbell, std::size_t shard_begin, std::size_t shard_size);
  int poll_push() override;
  std::size_t take_header(int source, PushHeader& header) override;
  std::span<const float> gradient_chunk(int source, int chunk) override;
  std::span<const std::uint32_t> packed_push(int source, std::size_t first_word, std::size_t words) override;
  void begin_reply(int source, std::uint64_t version) override;
  std::span<float> reply_area(int source, int chunk) override;
  void chunk_done(int source, int chunk, std::span<const float> shard_chunk) override;
  void reply_done(int /*source*/) override {}
  mpi::WakeCounter* doorbell() override { return doorbell_ != nullptr ? &doorbell_->pushes : nullptr; }

 private:
  /// The served worker at world rank source.
  [[nodiscard]] const LocalWorker& worker(int source) const;

  std::vector<LocalWorker> workers_;
  Doorbell* doorbell_;
  std::size_t shard_begin_;
  std::size_t shard_size_;
  std::vector<std::uint64_t> found_;   // per worker, the sequence number of the push poll_push found
  std::vector<std::uint64_t> served_;  // per worker, the sequence number last taken
  std::size_t next_ = 0;               // where the next scan starts (round robin)
  std::uint64_t published_ = 0;        // the replying worker's chunks_ready when its reply began
};

}  // namespace psbench::ps
