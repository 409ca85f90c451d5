#pragma once

#include <mpi.h>

#include <chrono>
#include <span>

#include "mpi/communicator.hpp"

namespace psbench::mpi {

/// Calls poll() until it returns true. A rank that has a core to itself first polls flat out for the
/// spin budget (the reply to a push is usually microseconds away); after that, or at once on an
/// oversubscribed node, it polls between sched_yield calls and then between sleeps that double from
/// 1 us to 50 us, so a rank sharing a core leaves it to the rank that has work.
template <typename Poll>
void wait_with_backoff(Poll&& poll);

/// Sets how long waits poll before they yield (zero, the default, backs off at once).
void set_spin_budget(std::chrono::microseconds budget);
/// The spin budget in force.
[[nodiscard]] std::chrono::microseconds spin_budget();

/// Collective: sets the spin budget from PSBENCH_SPIN_US (microseconds) when it is set, otherwise to
/// 10 ms when the node has a core for each of its ranks and to zero when it is oversubscribed. Throws
/// UserError for a PSBENCH_SPIN_US that is not a count of microseconds.
void configure_waits(const Communicator& world);

/// Blocks with backoff until a message matching (source, tag) can be received, and returns its status.
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag);

/// Blocks with backoff until every request has completed (MPI_Testall); completed requests become null.
void wait_all(std::span<MPI_Request> requests);

namespace detail {
/// The backoff schedule of one wait: what to do after each unsuccessful poll.
class Backoff {
 public:
  /// Starts the wait's clock.
  Backoff();
  /// Pauses after an unsuccessful poll: a spin, a yield or a sleep, depending on how long the wait lasts.
  void pause();

 private:
  std::chrono::steady_clock::time_point spin_until_;
  bool spinning_;
  int attempt_ = 0;
};
}  // namespace detail

template <typename Poll>
void wait_with_backoff(Poll&& poll) {
  if (poll()) return;
  detail::Backoff backoff;
  while (!poll()) backoff.pause();
}

}  // namespace psbench::mpi
