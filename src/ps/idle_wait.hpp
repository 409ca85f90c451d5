#pragma once

#include <mpi.h>

namespace psbench::ps {

/// Blocks until a message matching (source, tag) can be received, without holding a core: it probes
/// a few times, then yields, then sleeps with exponential backoff (capped at tens of microseconds), so a
/// server sharing a core with a worker leaves the core to the worker while idle.
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag);

}  // namespace psbench::ps
