#pragma once

#include <mpi.h>

#include <span>

namespace psbench::mpi {

/// Calls poll() until it returns true without holding a core: a few tight calls, then calls separated by
/// sched_yield, then by sleeps that double from 1 us to 50 us. A rank that shares a core (a server beside
/// workers on one machine, or oversubscribed ranks) thus leaves it to the rank that has work.
template <typename Poll>
void wait_with_backoff(Poll&& poll);

/// Blocks with backoff until a message matching (source, tag) can be received, and returns its status.
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag);

/// Blocks with backoff until every request has completed (MPI_Testall); completed requests become null.
void wait_all(std::span<MPI_Request> requests);

namespace detail {
/// The backoff schedule: what to do after the attempt-th unsuccessful poll.
void back_off(int attempt);
}  // namespace detail

template <typename Poll>
void wait_with_backoff(Poll&& poll) {
  for (int attempt = 0; !poll(); ++attempt) detail::back_off(attempt);
}

}  // namespace psbench::mpi
