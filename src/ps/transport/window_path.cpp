#include "ps/transport/window_path.hpp"

#include <algorithm>

namespace psbench::ps {

WindowPath::WindowPath(const NodeLink& link, int shard, std::size_t begin, std::size_t size)
    : mailbox_(link.mailbox(shard)),
      doorbell_(link.doorbell(shard)),
      gradients_(link.gradients()),
      parameters_(link.parameters()),
      packed_(link.packed()),
      begin_(begin),
      size_(size) {}

void WindowPath::announce(const PushHeader& header) {
  ++sequence_;
  mailbox_->header = header;
  mailbox_->pushed.store(sequence_, std::memory_order_release);
  mpi::publish_increment(doorbell_->pushes);
}

void WindowPath::start(const PushHeader& header, std::span<const float> gradients,
                       std::span<const std::uint32_t> packed, std::size_t first_word, std::span<float> /*replies*/) {
  in_place_ = packed.empty() && gradients.data() == gradients_.data();
  if (!packed.empty()) {  // the packed words go where the server reads them (offsets as in the worker's vector)
    std::ranges::copy(packed, packed_.begin() + static_cast<std::ptrdiff_t>(first_word));
  } else if (!in_place_) {
    std::copy_n(gradients.begin() + static_cast<std::ptrdiff_t>(begin_), size_,
                gradients_.begin() + static_cast<std::ptrdiff_t>(begin_));
  }
  ++replies_;
  announce(header);
}

bool WindowPath::reads(const float* data) const { return in_place_ && data == gradients_.data() && !replied(); }

bool WindowPath::replied() const {
  const auto chunks = static_cast<std::uint64_t>(chunk_count(size_));
  return mailbox_->chunks_ready.value.load(std::memory_order_acquire) >= replies_ * chunks;
}

bool WindowPath::take_reply(std::span<float> parameters) {
  const auto chunks = static_cast<std::uint64_t>(chunk_count(size_));
  const std::uint64_t wanted = replies_ * chunks;
  if (copied_ == wanted) return true;
  const std::uint64_t ready = std::min(mailbox_->chunks_ready.value.load(std::memory_order_acquire), wanted);
  if (parameters.data() == parameters_.data()) {  // the caller's parameters are the area: nothing to copy
    copied_ = ready;
    return ready == wanted;
  }
  for (; copied_ < ready; ++copied_) {
    const auto [offset, count] = chunk_span(size_, static_cast<int>(copied_ % chunks));
    std::copy_n(parameters_.begin() + static_cast<std::ptrdiff_t>(begin_ + offset), count,
                parameters.begin() + static_cast<std::ptrdiff_t>(begin_ + offset));
  }
  return copied_ == wanted;
}

void WindowPath::finish(const PushHeader& done) { announce(done); }

}  // namespace psbench::ps
