#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace psbench::mpi {

/// A 64-bit count in memory shared between processes (an MPI-3 shared window) that a waiter can sleep on in
/// the kernel: a futex on the count's low 32 bits, without FUTEX_PRIVATE_FLAG, since other processes map the
/// same pages. A publisher makes the wake-up system call only when a waiter has said that it sleeps, so
/// where every rank has its own core (waiters spin and never sleep) publishing costs no system call.
struct WakeCounter {
  std::atomic<std::uint64_t> value{0};     ///< the count; only publishers advance it
  std::atomic<std::uint32_t> sleepers{0};  ///< waiters inside sleep_until_changed
};

/// Publisher: stores value as the new count and wakes every sleeping waiter.
void publish(WakeCounter& counter, std::uint64_t value);

/// Publisher: adds one to the count and wakes every sleeping waiter.
void publish_increment(WakeCounter& counter);

/// Waiter: sleeps until the count differs from seen, a publisher wakes it, or timeout has passed, whichever
/// comes first (a wake-up may also be spurious); returns whether the count differs from seen. Load seen before
/// looking at what the count guards: a publication after that look then ends the sleep at once.
bool sleep_until_changed(WakeCounter& counter, std::uint64_t seen, std::chrono::microseconds timeout);

}  // namespace psbench::mpi
