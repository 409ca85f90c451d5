#include "ps/transport/messages_server.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "ps/protocol_error.hpp"

namespace psbench::ps {
namespace {

// Slots of a server's receive ring (protocol.hpp's ring_chunks) as a count of buffers.
std::size_t ring_slots(std::size_t shard_size) { return static_cast<std::size_t>(ring_chunks(shard_size)); }

}  // namespace

MessagesServer::MessagesServer(const mpi::Communicator& comm, int server, std::size_t shard_size,
                               const PushValidator& validator, std::chrono::microseconds spin_budget)
    : comm_(comm.native()),
      server_(server),
      shard_size_(shard_size),
      validator_(validator),
      spin_budget_(spin_budget),
      gradient_(std::min(shard_size, ring_slots(shard_size) * kChunkValues)),
      chunk_receives_(ring_slots(shard_size), "a server's chunk receives"),
      chunk_sends_(static_cast<std::size_t>(chunk_count(shard_size)), "a server's chunk sends") {}

int MessagesServer::poll_push() {
  int found = 0;
  PSBENCH_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, kTagPushHeader, comm_, &found, &probed_));
  return found != 0 ? probed_.MPI_SOURCE : -1;
}

std::size_t MessagesServer::take_header(int source, PushHeader& header) {
  int bytes = 0;
  PSBENCH_MPI_CALL(MPI_Get_count(&probed_, MPI_BYTE, &bytes));
  if (bytes != static_cast<int>(sizeof header)) {
    // Received before it is refused, so that it cannot match a later probe of this communicator.
    std::vector<std::byte> bad(static_cast<std::size_t>(std::max(bytes, 0)));
    PSBENCH_MPI_CALL(MPI_Recv(bad.data(), bytes, MPI_BYTE, source, kTagPushHeader, comm_, MPI_STATUS_IGNORE));
    return static_cast<std::size_t>(std::max(bytes, 0));
  }
  PSBENCH_MPI_CALL(MPI_Recv(&header, sizeof header, MPI_BYTE, source, kTagPushHeader, comm_, MPI_STATUS_IGNORE));
  return sizeof header;
}

std::span<const float> MessagesServer::gradient_chunk(int source, int chunk) {
  const std::size_t slots = chunk_receives_.size();
  if (chunk == 0) {  // the whole ring is posted at once
    for (int c = 0; c < std::min(chunk_count(shard_size_), static_cast<int>(slots)); ++c) receive_chunk(source, c);
  } else if (chunk - 1 + static_cast<int>(slots) < chunk_count(shard_size_)) {
    receive_chunk(source, chunk - 1 + static_cast<int>(slots));  // chunk - 1 is applied: its slot takes the next
  }
  const auto slot = static_cast<std::size_t>(chunk) % slots;
  const std::size_t count = chunk_span(shard_size_, chunk).count;
  wait_for_chunk(source, chunk, slot, count);
  return {gradient_.span().data() + slot * kChunkValues, count};
}

std::span<const std::uint32_t> MessagesServer::packed_push(int source, std::size_t /*first_word*/, std::size_t words) {
  // A compressed push is one message of packed words.
  packed_.resize(words);  // the same size every push: allocated once
  PSBENCH_MPI_CALL(MPI_Irecv(packed_.data(), static_cast<int>(words), MPI_UINT32_T, source, kTagPushData, comm_,
                             chunk_receives_.at(0)));
  wait_for_chunk(source, 0, 0, words);  // a word is as long as a float
  return packed_;
}

void MessagesServer::begin_reply(int source, std::uint64_t version) {
  const PullHeader reply{version};
  PSBENCH_MPI_CALL(MPI_Send(&reply, sizeof reply, MPI_BYTE, source, kTagPullHeader, comm_));
}

void MessagesServer::chunk_done(int source, int chunk, std::span<const float> shard_chunk) {
  PSBENCH_MPI_CALL(MPI_Isend(shard_chunk.data(), static_cast<int>(shard_chunk.size()), MPI_FLOAT, source, kTagPullData,
                             comm_, chunk_sends_.at(static_cast<std::size_t>(chunk))));
}

void MessagesServer::reply_done(int /*source*/) {
  // The next update may modify any chunk: every send from the shard completes first.
  mpi::wait_with_backoff(spin_budget_, [&] { return mpi::test_all(chunk_sends_.all()); });
}

void MessagesServer::receive_chunk(int source, int chunk) {
  const std::size_t slot = static_cast<std::size_t>(chunk) % chunk_receives_.size();
  const std::size_t count = chunk_span(shard_size_, chunk).count;
  PSBENCH_MPI_CALL(MPI_Irecv(gradient_.span().data() + slot * kChunkValues, static_cast<int>(count), MPI_FLOAT, source,
                             kTagPushData, comm_, chunk_receives_.at(slot)));
}

void MessagesServer::wait_for_chunk(int source, int chunk, std::size_t slot, std::size_t values) {
  MPI_Status status{};
  int bytes = 0;
  try {
    mpi::wait_with_backoff(spin_budget_, [&] {
      int done = 0;
      PSBENCH_MPI_CALL(MPI_Test(chunk_receives_.at(slot), &done, &status));
      return done != 0;
    });
    PSBENCH_MPI_CALL(MPI_Get_count(&status, MPI_BYTE, &bytes));
  } catch (const SystemError& error) {  // a longer message than the chunk fails the receive (truncation)
    throw ProtocolError("parameter server " + std::to_string(server_) + ": gradient chunk " + std::to_string(chunk) +
                        " from " + validator_.describe(source) + " failed: " + error.what());
  }
  if (static_cast<std::size_t>(bytes) != values * sizeof(float)) {
    throw ProtocolError("parameter server " + std::to_string(server_) + " received a malformed push from " +
                        validator_.describe(source) + ": gradient chunk " + std::to_string(chunk) + " of " +
                        std::to_string(bytes) + " bytes, expected " + std::to_string(values * sizeof(float)));
  }
}

}  // namespace psbench::ps
