#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "mpi/communicator.hpp"
#include "mpi/request_set.hpp"
#include "ps/push_validator.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A server's reach to its workers by MPI messages (protocol.hpp's tags, on the server's own communicator): a push
/// is a header and then one message per chunk, received into a ring of kRingChunks chunk buffers that stays in the
/// cache, the ring's slots posted ahead so that chunk c + 1 arrives while chunk c is applied; a reply is a header and
/// one message per fresh chunk, sent from the shard as each chunk is done.
class MessagesServer final : public ServerTransport {
 public:
  /// For the server of a shard of shard_size values on comm (the server's duplicate of the job's communicator);
  /// validator names senders in errors; waits poll with spin_budget.
  MessagesServer(const mpi::Communicator& comm, int server, std::size_t shard_size, const PushValidator& validator,
                 std::chrono::microseconds spin_budget);
  int poll_push() override;
  std::size_t take_header(int source, PushHeader& header) override;
  std::span<const float> gradient_chunk(int source, int chunk) override;
  std::span<const std::uint32_t> packed_push(int source, std::size_t first_word, std::size_t words) override;
  void begin_reply(int source, std::uint64_t version) override;
  void chunk_done(int source, int chunk, std::span<const float> shard_chunk) override;
  void reply_done(int source) override;

 private:
  /// Starts the receive of gradient chunk `chunk` from source into its ring slot.
  void receive_chunk(int source, int chunk);
  /// Waits for the receive in ring slot (chunk `chunk` from source) and checks that it brought values values.
  void wait_for_chunk(int source, int chunk, std::size_t slot, std::size_t values);

  MPI_Comm comm_;
  int server_;
  std::size_t shard_size_;
  const PushValidator& validator_;
  std::chrono::microseconds spin_budget_;
  MPI_Status probed_{};     // the header poll_push found
  AlignedBuffer gradient_;  // ring of received gradient chunks (kRingChunks at most)
  mpi::RequestSet chunk_receives_;
  mpi::RequestSet chunk_sends_;
  std::vector<std::uint32_t> packed_;  // a compressed push (sized at its first arrival)
};

}  // namespace psbench::ps
