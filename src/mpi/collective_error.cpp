#include "mpi/collective_error.hpp"

#include <climits>

#include "mpi/backoff_wait.hpp"

namespace psbench::mpi {
namespace {

// The lowest failing rank (INT_MAX for none). A rank that finished its step early waits with backoff, not in
// a blocking MPI_Allreduce: Open MPI's spins, and on an oversubscribed node the parameter servers spinning
// through the workers' start-up read took the core from the reader whose turn it was.
int lowest_failing_rank(const Communicator& comm, int failed_rank) {
  int lowest = INT_MAX;
  MPI_Request request = MPI_REQUEST_NULL;
  PSBENCH_MPI_CALL(MPI_Iallreduce(&failed_rank, &lowest, 1, MPI_INT, MPI_MIN, comm.native(), &request));
  wait_all(std::span<MPI_Request>(&request, 1));
  return lowest;
}

}  // namespace

void run_collectively(const Communicator& comm, const std::function<void()>& step) {
  std::string message;
  int failed_rank = INT_MAX;
  try {
    step();
  } catch (const UserError& error) {
    message = error.what();
    failed_rank = comm.rank();
  }
  const int first_failure = lowest_failing_rank(comm, failed_rank);
  if (first_failure == INT_MAX) return;
  comm.broadcast(message, first_failure);
  throw CollectiveUserError(message);
}

}  // namespace psbench::mpi
