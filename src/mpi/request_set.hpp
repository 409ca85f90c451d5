#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace psbench::mpi {

/// Owner of a fixed number of MPI requests. The buffers a request reads or writes belong to the caller and
/// must outlive it; the destructor checks that no request is pending (a pending one would write into freed
/// memory) and reports one that is, naming what the set is for.
class RequestSet {
 public:
  /// count null requests; what names them in a report ("server 0's chunk receives").
  RequestSet(std::size_t count, const char* what);
  RequestSet(const RequestSet&) = delete;
  RequestSet& operator=(const RequestSet&) = delete;
  /// Moves the requests; the source keeps none.
  RequestSet(RequestSet&& other) noexcept;
  RequestSet& operator=(RequestSet&&) = delete;
  /// Reports pending requests; while an exception unwinds the job is ending, so it only logs them.
  ~RequestSet();

  /// Request i, to pass to an MPI call that starts it.
  [[nodiscard]] MPI_Request* at(std::size_t i) { return &requests_[i]; }
  /// Every request, for MPI_Test*/MPI_Wait* calls.
  [[nodiscard]] std::span<MPI_Request> all() { return requests_; }
  /// Requests first .. first+count-1.
  [[nodiscard]] std::span<MPI_Request> slice(std::size_t first, std::size_t count);
  /// Number of requests in the set.
  [[nodiscard]] std::size_t size() const { return requests_.size(); }
  /// Requests started and not yet completed (not null).
  [[nodiscard]] std::size_t pending() const;

 private:
  std::vector<MPI_Request> requests_;
  const char* what_;
};

}  // namespace psbench::mpi
