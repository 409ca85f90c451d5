#include "ps/transport/window_server.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::ps {

WindowServer::WindowServer(std::vector<LocalWorker> workers, Doorbell* doorbell, std::size_t shard_begin,
                           std::size_t shard_size)
    : workers_(std::move(workers)),
      doorbell_(doorbell),
      shard_begin_(shard_begin),
      shard_size_(shard_size),
      found_(workers_.size(), 0),
      served_(workers_.size(), 0) {}

const LocalWorker& WindowServer::worker(int source) const {
  const auto found = std::ranges::find(workers_, source, &LocalWorker::world_rank);
  PSBENCH_CHECK(found != workers_.end()) << "rank " << source << " is not served through the node's window";
  return *found;
}

int WindowServer::poll_push() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const std::size_t w = (next_ + i) % workers_.size();
    const std::uint64_t sequence = workers_[w].mailbox->pushed.load(std::memory_order_acquire);
    if (sequence != served_[w]) {
      next_ = w + 1;
      found_[w] = sequence;
      return workers_[w].world_rank;
    }
  }
  return -1;
}

std::size_t WindowServer::take_header(int source, PushHeader& header) {
  const auto w = static_cast<std::size_t>(&worker(source) - workers_.data());
  header = workers_[w].mailbox->header;
  served_[w] = found_[w];
  return sizeof header;
}

std::span<const float> WindowServer::gradient_chunk(int source, int chunk) {
  const auto [offset, count] = chunk_span(shard_size_, chunk);
  return {worker(source).gradients + shard_begin_ + offset, count};  // where the worker's backward pass left it
}

std::span<const std::uint32_t> WindowServer::packed_push(int source, std::size_t first_word, std::size_t words) {
  return {worker(source).packed + first_word, words};
}

void WindowServer::begin_reply(int source, std::uint64_t version) {
  Mailbox& mailbox = *worker(source).mailbox;
  mailbox.version = version;
  published_ = mailbox.chunks_ready.value.load(std::memory_order_relaxed);  // written only here
}

std::span<float> WindowServer::reply_area(int source, int chunk) {
  const auto [offset, count] = chunk_span(shard_size_, chunk);
  return {worker(source).parameters + shard_begin_ + offset, count};
}

void WindowServer::chunk_done(int source, int chunk, std::span<const float> /*shard_chunk*/) {
  Mailbox& mailbox = *worker(source).mailbox;
  const std::uint64_t ready = published_ + static_cast<std::uint64_t>(chunk) + 1;
  if (chunk + 1 < chunk_count(shard_size_)) {
    mailbox.chunks_ready.value.store(ready, std::memory_order_release);  // a spinning worker takes it now
  } else {
    mpi::publish(mailbox.chunks_ready, ready);  // the whole reply: wakes a sleeping worker
  }
}

}  // namespace psbench::ps
