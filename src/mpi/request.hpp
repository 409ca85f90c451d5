#pragma once

#include <mpi.h>

namespace psbench::mpi {

/// Move-only ticket for a nonblocking MPI operation; the caller keeps the operation's buffer alive and
/// untouched until wait() or a true test() returns.
class Request {
 public:
  /// An inactive ticket.
  Request() = default;
  /// Takes ownership of an active MPI request.
  explicit Request(MPI_Request request) : request_(request) {}
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  /// Moves the ticket; the source becomes inactive.
  Request(Request&& other) noexcept;
  /// Moves the ticket; a still-active target is released first.
  Request& operator=(Request&& other) noexcept;
  /// Releases a still-active request with a warning (the operation is left to complete on its own).
  ~Request();

  /// Blocks until the operation completes and returns its status.
  MPI_Status wait();
  /// True once the operation has completed (then the ticket is inactive).
  bool test(MPI_Status* status = MPI_STATUS_IGNORE);
  /// True while an operation is pending.
  [[nodiscard]] bool active() const { return request_ != MPI_REQUEST_NULL; }
  /// The raw handle, for MPI_Waitany and friends.
  [[nodiscard]] MPI_Request* native() { return &request_; }

 private:
  void release() noexcept;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace psbench::mpi
