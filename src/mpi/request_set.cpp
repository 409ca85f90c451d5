#include "mpi/request_set.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "common/check.hpp"

namespace psbench::mpi {

RequestSet::RequestSet(std::size_t count, const char* what) : requests_(count, MPI_REQUEST_NULL), what_(what) {}

RequestSet::RequestSet(RequestSet&& other) noexcept
    : requests_(std::exchange(other.requests_, {})), what_(other.what_) {}

RequestSet::~RequestSet() {
  const std::size_t left = pending();
  if (left == 0) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (std::uncaught_exceptions() > 0 || finalized != 0) {
    // The job is ending (the exception reaches main, which aborts every rank): say so and leave the requests.
    std::fprintf(stderr, "psbench: warning: %zu MPI request(s) of %s still pending while the job ends\n", left, what_);
    return;
  }
  PSBENCH_CHECK(left == 0) << left << " MPI request(s) of " << what_ << " still pending when their owner ends";
}

std::span<MPI_Request> RequestSet::slice(std::size_t first, std::size_t count) {
  return std::span<MPI_Request>(requests_).subspan(first, count);
}

std::size_t RequestSet::pending() const {
  return static_cast<std::size_t>(
      std::count_if(requests_.begin(), requests_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }));
}

}  // namespace psbench::mpi
