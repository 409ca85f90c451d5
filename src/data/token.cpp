#include "data/token.hpp"

#include "mpi/backoff_wait.hpp"

namespace psbench::data {

void send_token(const mpi::Communicator& comm, int dest, int tag) {
  int token = 0;
  PSBENCH_MPI_CALL(MPI_Send(&token, 1, MPI_INT, dest, tag, comm.native()));
}

void receive_token(const mpi::Communicator& comm, int source, int tag) {
  // A waiting reader sleeps between probes (Open MPI's blocking receive would spin), leaving the core to
  // the reader whose turn it is.
  (void)mpi::wait_for_message(comm.native(), source, tag);
  int token = 0;
  PSBENCH_MPI_CALL(MPI_Recv(&token, 1, MPI_INT, source, tag, comm.native(), MPI_STATUS_IGNORE));
}

}  // namespace psbench::data
