#include "mpi/collective_error.hpp"

#include <climits>

namespace psbench::mpi {

void run_collectively(const Communicator& comm, const std::function<void()>& step) {
  std::string message;
  int failed_rank = INT_MAX;
  try {
    step();
  } catch (const UserError& error) {
    message = error.what();
    failed_rank = comm.rank();
  }
  const int first_failure = comm.allreduce(failed_rank, ReduceOp::kMin);
  if (first_failure == INT_MAX) return;
  comm.broadcast(message, first_failure);
  throw CollectiveUserError(message);
}

}  // namespace psbench::mpi
