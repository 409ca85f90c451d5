#include "mpi/request.hpp"

#include <cstdio>
#include <utility>

#include "mpi/call.hpp"

namespace psbench::mpi {

Request::Request(Request&& other) noexcept : request_(std::exchange(other.request_, MPI_REQUEST_NULL)) {}

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    release();
    request_ = std::exchange(other.request_, MPI_REQUEST_NULL);
  }
  return *this;
}

Request::~Request() { release(); }

void Request::release() noexcept {
  if (request_ == MPI_REQUEST_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) {
    std::fprintf(stderr, "psbench: warning: an MPI request was dropped before completion\n");
    MPI_Request_free(&request_);
  }
  request_ = MPI_REQUEST_NULL;
}

MPI_Status Request::wait() {
  MPI_Status status{};
  PSBENCH_MPI_CALL(MPI_Wait(&request_, &status));
  return status;
}

bool Request::test(MPI_Status* status) {
  int done = 0;
  PSBENCH_MPI_CALL(MPI_Test(&request_, &done, status));
  return done != 0;
}

}  // namespace psbench::mpi
