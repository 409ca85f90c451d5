#pragma once

#include <functional>
#include <string>

#include "common/error.hpp"
#include "mpi/communicator.hpp"

namespace psbench::mpi {

/// A UserError that every rank of a communicator knows about, so one rank reports it and all exit cleanly.
class CollectiveUserError : public UserError {
 public:
  /// Wraps the message of the lowest failing rank.
  explicit CollectiveUserError(const std::string& message) : UserError(message) {}
};

/// Collective: runs step on every rank; if it throws UserError on any rank, every rank throws
/// CollectiveUserError with the message of the lowest failing rank. Other exceptions pass through.
void run_collectively(const Communicator& comm, const std::function<void()>& step);

}  // namespace psbench::mpi
