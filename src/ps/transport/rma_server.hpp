#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ps/topology.hpp"
#include "ps/transport/rma_link.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A server's reach to the workers it serves by MPI one-sided communication (RmaLink): a push is found by its
/// sequence number in the worker's slot of this server's memory, where the whole push already lies (the worker
/// flushed it before raising the number); each fresh chunk of the reply is put into the worker's area, flushed, and
/// announced by raising the area's count of chunks ready with an atomic accumulate.
class RmaServer final : public ServerTransport {
 public:
  /// For the server of topology (its shard of shard_size values), serving link's RMA workers.
  RmaServer(const RmaLink& link, const Topology& topology, std::size_t shard_size);
  // The reply: the version, then each chunk put and announced.
  void begin_reply(int source, std::uint64_t version) override;
  void chunk_done(int source, int chunk, std::span<const float> shard_chunk) override;
  void reply_done(int source) override;
  // The push, found and read in this server's own memory.
  int poll_push() override;
  std::size_t take_header(int source, PushHeader& header) override;
  std::span<const float> gradient_chunk(int source, int chunk) override;
  std::span<const std::uint32_t> packed_push(int source, std::size_t first_word, std::size_t words) override;

 private:
  /// The slot of the worker at world rank source in this server's memory.
  [[nodiscard]] std::byte* slot(int source) const;

  const RmaLink& link_;
  Topology topology_;
  std::size_t shard_size_;
  std::vector<int> workers_;              // worker indices served, in order
  std::vector<std::uint64_t> found_;      // per worker index: the sequence number poll_push found
  std::vector<std::uint64_t> served_;     // per worker index: the sequence number last taken
  std::vector<std::uint64_t> published_;  // per worker index: reply chunks announced so far
  std::size_t next_ = 0;                  // where the next scan starts (round robin)
  std::uint64_t version_ = 0;             // the reply's version, put from here
  std::uint64_t ready_ = 0;               // the latest count of chunks ready, accumulated from here
};

}  // namespace psbench::ps
