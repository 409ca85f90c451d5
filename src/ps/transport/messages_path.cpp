#include "ps/transport/messages_path.hpp"

#include <algorithm>
#include <string>

#include "mpi/call.hpp"
#include "ps/protocol_error.hpp"

namespace psbench::ps {

MessagesPath::MessagesPath(const mpi::Communicator& comm, int server_rank, std::size_t begin, std::size_t size)
    : comm_(comm.native()),
      server_(server_rank),
      begin_(begin),
      size_(size),
      sends_(1 + static_cast<std::size_t>(chunk_count(size)), "a worker's push sends"),
      receives_(1 + static_cast<std::size_t>(chunk_count(size)), "a worker's pull receives"),
      statuses_(receives_.size()) {}

void MessagesPath::start(const PushHeader& header, std::span<const float> gradients,
                         std::span<const std::uint32_t> packed, std::size_t /*first_word*/, std::span<float> replies) {
  push_header_ = header;
  source_ = packed.empty() ? gradients.data() : nullptr;  // packed words are the client's own
  landing_ = replies.data();
  sent_ = false;
  received_ = false;
  delivered_ = false;
  // Receives are posted first, so the reply lands without a copy (in the parameters, or the reply buffer).
  PSBENCH_MPI_CALL(
      MPI_Irecv(&pull_header_, sizeof pull_header_, MPI_BYTE, server_, kTagPullHeader, comm_, receives_.at(0)));
  PSBENCH_MPI_CALL(
      MPI_Isend(&push_header_, sizeof push_header_, MPI_BYTE, server_, kTagPushHeader, comm_, sends_.at(0)));
  if (!packed.empty()) {  // the shard's packed form in one message, in the request of chunk 0's send
    PSBENCH_MPI_CALL(MPI_Isend(packed.data(), static_cast<int>(packed.size()), MPI_UINT32_T, server_, kTagPushData,
                               comm_, sends_.at(1)));
  }
  for (int c = 0; c < chunk_count(size_); ++c) {
    const auto [offset, count] = chunk_span(size_, c);
    const auto request = static_cast<std::size_t>(c) + 1;
    PSBENCH_MPI_CALL(MPI_Irecv(replies.data() + begin_ + offset, static_cast<int>(count), MPI_FLOAT, server_,
                               kTagPullData, comm_, receives_.at(request)));
    if (!packed.empty()) continue;
    PSBENCH_MPI_CALL(MPI_Isend(gradients.data() + begin_ + offset, static_cast<int>(count), MPI_FLOAT, server_,
                               kTagPushData, comm_, sends_.at(request)));
  }
}

void MessagesPath::progress() {
  if (!sent_) {
    int done = 0;
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(sends_.size()), sends_.all().data(), &done, MPI_STATUSES_IGNORE));
    sent_ = done != 0;
  }
  if (!received_) {
    int done = 0;
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(receives_.size()), receives_.all().data(), &done, statuses_.data()));
    received_ = done != 0;
  }
}

bool MessagesPath::take_reply(std::span<float> parameters) {
  progress();
  if (!received_ || !sent_) return false;
  if (!delivered_ && landing_ != parameters.data()) {  // landed in the reply buffer (a pipelined exchange)
    std::copy_n(landing_ + begin_, size_, parameters.begin() + static_cast<std::ptrdiff_t>(begin_));
  }
  delivered_ = true;
  return true;
}

std::uint64_t MessagesPath::reply_version() const {
  for (std::size_t r = 0; r < statuses_.size(); ++r) {
    const std::size_t expected =
        r == 0 ? sizeof(PullHeader) : chunk_span(size_, static_cast<int>(r - 1)).count * sizeof(float);
    int bytes = 0;
    PSBENCH_MPI_CALL(MPI_Get_count(&statuses_[r], MPI_BYTE, &bytes));
    if (static_cast<std::size_t>(bytes) != expected) {
      throw ProtocolError("message " + std::to_string(r) + " of " + std::to_string(bytes) + " bytes, expected " +
                          std::to_string(expected));
    }
  }
  return pull_header_.version;
}

void MessagesPath::finish(const PushHeader& done) {
  PSBENCH_MPI_CALL(MPI_Send(&done, sizeof done, MPI_BYTE, server_, kTagPushHeader, comm_));
}

}  // namespace psbench::ps
