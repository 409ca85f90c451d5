#pragma once

#include <string>

#include "common/error.hpp"

namespace psbench::ps {

/// A message that breaks the parameter-server protocol (malformed header, wrong size, wrong sender): the
/// job ends with this message, which names the rank that sent it.
class ProtocolError : public SystemError {
 public:
  /// Wraps a message naming the receiver, the sender and what was wrong.
  explicit ProtocolError(const std::string& message) : SystemError(message) {}
};

/// A peer silent for longer than the stall timeout: the job ends with this message, which names the rank.
class PeerStalled : public SystemError {
 public:
  /// Wraps a message naming the silent rank, for how long, and the timeout.
  explicit PeerStalled(const std::string& message) : SystemError(message) {}
};

}  // namespace psbench::ps
