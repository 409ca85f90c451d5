#pragma once

#include <cstdint>
#include <span>

#include "ps/transport/node_link.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// A worker's path to a server of its node through the node's shared window (NodeLink): a push is its header in the
/// worker's mailbox, a sequence number and a ring of the server's doorbell; the server reads the gradient where it
/// lies in the window and writes each fresh chunk into the worker's parameter area, from which this path copies each
/// chunk into the parameters as it is published, or copies nothing where the parameters are that area.
class WindowPath final : public ServerPath {
 public:
  /// To the server of shard `shard`, whose values start at begin and number size, through link (the worker's).
  WindowPath(const NodeLink& link, int shard, std::size_t begin, std::size_t size);
  void start(const PushHeader& header, std::span<const float> gradients, std::span<const std::uint32_t> packed,
             std::size_t first_word, std::span<float> replies) override;
  void progress() override {}
  [[nodiscard]] bool pushed() const override { return true; }
  [[nodiscard]] bool reads(const float* data) const override;
  [[nodiscard]] bool replied() const override;
  bool take_reply(std::span<float> parameters) override;
  [[nodiscard]] std::uint64_t reply_version() const override { return mailbox_->version; }
  void finish(const PushHeader& done) override;
  [[nodiscard]] bool copies_push() const override { return true; }
  mpi::WakeCounter* reply_counter() override { return &mailbox_->chunks_ready; }

 private:
  /// Publishes header as the next push.
  void announce(const PushHeader& header);

  Mailbox* mailbox_;
  Doorbell* doorbell_;
  std::span<float> gradients_;   // the worker's gradients in the window
  std::span<float> parameters_;  // the worker's parameter area, where the server writes its reply
  std::span<std::uint32_t> packed_;
  std::size_t begin_;
  std::size_t size_;
  bool in_place_ = false;       // the push in flight is read where the caller's gradients lie (the window)
  std::uint64_t sequence_ = 0;  // pushes so far (each gradient push is answered with a whole shard)
  std::uint64_t replies_ = 0;   // gradient pushes so far
  std::uint64_t copied_ = 0;    // reply chunks copied out so far, all replies
};

}  // namespace psbench::ps
