#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ps/protocol.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// A server's check of every push it receives: the sender must be a worker that has not said done, the
/// header must have the protocol's size, a known kind, a version the shard has reached, the worker's
/// current epoch (epochs advance only after a step marked last of its epoch), a sample count in
/// [1, max_samples] and a last-of-epoch flag of 0 or 1. Anything else throws ProtocolError naming the sender.
class PushValidator {
 public:
  /// For the server of topology (its rank names it in messages).
  explicit PushValidator(const Topology& topology);
  /// Sets the largest sample count a step may carry (the batch size); until then any count from 1 up.
  void limit_samples(std::uint32_t max_samples) { max_samples_ = max_samples; }
  /// Resuming from a checkpoint: worker w's next step belongs to epochs[w] (one entry per worker).
  void start_at(std::span<const std::uint32_t> epochs);
  /// Checks a header announced by world rank source with bytes bytes, before it is received.
  void check_envelope(int source, std::size_t bytes) const;
  /// Checks header from source against a shard at version, and records it (epoch; done or abort).
  void accept(int source, const PushHeader& header, std::uint64_t version);
  /// "worker 2 (rank 3)", or "rank 0 (a server)" for a rank that is not a worker.
  [[nodiscard]] std::string describe(int source) const;

 private:
  [[noreturn]] void reject(int source, const std::string& problem) const;

  Topology topology_;
  std::uint32_t max_samples_ = UINT32_MAX;
  std::vector<std::uint32_t> epoch_;  // per worker: the epoch its next step belongs to
  std::vector<bool> done_;            // per worker: whether it has said done
};

}  // namespace psbench::ps
