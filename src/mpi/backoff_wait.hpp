#pragma once

#include <mpi.h>

#include <chrono>
#include <span>

#include "mpi/communicator.hpp"
#include "mpi/wake_counter.hpp"

namespace psbench::mpi {

/// Calls poll() until it returns true. A rank that has a core to itself first polls flat out for the
/// spin budget (the reply to a push is usually microseconds away); after that, or at once on an
/// oversubscribed node, it polls between sched_yield calls and then between sleeps that double from
/// 1 us to 50 us, so a rank sharing a core leaves it to the rank that has work.
template <typename Poll>
void wait_with_backoff(Poll&& poll);
/// wait_with_backoff with the given spin budget instead of the process's (spin_budget()).
template <typename Poll>
void wait_with_backoff(std::chrono::microseconds budget, Poll&& poll);

/// Waits until poll() returns true, calling watch() (a stall watchdog: it may throw) now and then. With a
/// spin budget (a core for each rank) it polls as wait_with_backoff does, watch() every kPollsPerWatch
/// polls; without one (ranks outnumber cores) it sleeps in the kernel on counter between polls, for at most
/// kSleepSlice at a time, so a publisher advancing counter wakes it and the watch runs after every sleep.
/// poll() must become true only after counter has been published.
template <typename Poll, typename Watch>
void wait_on_counter(std::chrono::microseconds budget, WakeCounter& counter, Poll&& poll, Watch&& watch);

/// Polls of a spinning wait_on_counter between two calls of its watch.
inline constexpr int kPollsPerWatch = 16;
/// The longest a sleeping wait_on_counter sleeps before it calls its watch.
inline constexpr std::chrono::microseconds kSleepSlice{20000};

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

/// Blocks with backoff until every request has completed (test_all); completed requests become null, or
/// inactive where persistent.
void wait_all(std::span<MPI_Request> requests);

/// Tests the requests in order with MPI_Test, stopping at the first still pending; true when all have completed.
bool test_all(std::span<MPI_Request> requests);

namespace detail {
/// The backoff schedule of one wait: what to do after each unsuccessful poll.
class Backoff {
 public:
  /// Starts the wait's clock, spinning first for budget.
  explicit Backoff(std::chrono::microseconds budget);
  /// Pauses after an unsuccessful poll: a spin, a yield or a sleep, depending on how long the wait lasts.
  void pause();

 private:
  std::chrono::steady_clock::time_point spin_until_;
  bool spinning_;
  int attempt_ = 0;
};
}  // namespace detail

template <typename Poll>
void wait_with_backoff(std::chrono::microseconds budget, Poll&& poll) {
  if (poll()) return;
  detail::Backoff backoff(budget);
  while (!poll()) backoff.pause();
}

template <typename Poll>
void wait_with_backoff(Poll&& poll) {
  wait_with_backoff(spin_budget(), poll);
}

template <typename Poll, typename Watch>
void wait_on_counter(std::chrono::microseconds budget, WakeCounter& counter, Poll&& poll, Watch&& watch) {
  if (budget.count() > 0) {
    int polls = 0;
    wait_with_backoff(budget, [&] {
      if (poll()) return true;
      if (++polls % kPollsPerWatch == 0) watch();
      return false;
    });
    return;
  }
  for (;;) {
    const std::uint64_t seen = counter.value.load(std::memory_order_acquire);  // before the look: no lost wake-up
    if (poll()) return;
    sleep_until_changed(counter, seen, kSleepSlice);
    watch();
  }
}

}  // namespace psbench::mpi
