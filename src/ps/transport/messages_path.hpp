#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "mpi/communicator.hpp"
#include "mpi/request_set.hpp"
#include "ps/topology.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A worker's path to one server by MPI messages (protocol.hpp's tags, on the worker's own communicator): the
/// receives of the reply (a header, one message per chunk) are posted first, straight into where the reply lands,
/// then the push goes out (a header and one message per chunk, or the packed words in one message) read in place.
class MessagesPath final : public ServerPath {
 public:
  /// To server `shard` (world rank server_rank), whose values start at begin and number size, on comm.
  MessagesPath(const mpi::Communicator& comm, int server_rank, std::size_t begin, std::size_t size);
  void start(const PushHeader& header, std::span<const float> gradients, std::span<const std::uint32_t> packed,
             std::size_t first_word, std::span<float> replies) override;
  void progress() override;
  [[nodiscard]] bool pushed() const override { return sent_; }
  [[nodiscard]] bool reads(const float* data) const override { return !sent_ && source_ == data; }
  [[nodiscard]] bool replied() const override { return received_; }
  bool take_reply(std::span<float> parameters) override;
  [[nodiscard]] std::uint64_t reply_version() const override;
  void finish(const PushHeader& done) override;
  [[nodiscard]] bool copies_push() const override { return false; }

 private:
  MPI_Comm comm_;
  int server_;
  std::size_t begin_;
  std::size_t size_;
  PushHeader push_header_;
  PullHeader pull_header_;
  mpi::RequestSet sends_;     // the header's, then one per chunk
  mpi::RequestSet receives_;  // the same
  std::vector<MPI_Status> statuses_;
  const float* source_ = nullptr;  // the vector the push reads
  float* landing_ = nullptr;       // the vector the reply lands in
  bool sent_ = true;
  bool received_ = true;
  bool delivered_ = true;  // the reply is in the caller's parameters
};

}  // namespace psbench::ps
