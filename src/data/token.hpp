#pragma once

#include "mpi/communicator.hpp"

namespace psbench::data {

/// Sends a one-int token to rank dest of comm (small: returns at once).
void send_token(const mpi::Communicator& comm, int dest, int tag);

/// Receives a one-int token from rank source without holding a core: it probes, then sleeps with a
/// backoff capped at a millisecond. Readers waiting their turn thus leave the cores to the one reading
/// when ranks share a machine (Open MPI's blocking receive spins), at the cost of under a millisecond of
/// latency per turn.
void receive_token(const mpi::Communicator& comm, int source, int tag);

}  // namespace psbench::data
