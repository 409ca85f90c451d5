#pragma once

#include <chrono>

namespace psbench::ps {

/// Default stall timeout (seconds): far above any step psbench takes (the slowest, a CNN step on one
/// oversubscribed core, takes well under a second), so it only ever fires on a rank that has stopped.
inline constexpr double kDefaultStallTimeoutSeconds = 300.0;

/// What a run sets for its servers and workers, passed to each by value (nothing is a process-wide setting).
struct ProtocolSettings {
  /// --staleness s (SSP): a server holds the reply to a push that brings its worker's clock more than s ahead of the
  /// slowest worker's; negative: unbounded (the default).
  int staleness_bound = -1;
  /// --stall-timeout: how long a server lets a worker be silent and a worker waits for a reply before the job ends
  /// (seconds; 0 turns the watch off).
  double stall_timeout_s = kDefaultStallTimeoutSeconds;
  /// How long a wait polls flat out before it yields (mpi::configure_waits's choice; zero: back off at once, and
  /// waits on a node's shared window sleep in the kernel).
  std::chrono::microseconds spin_budget{0};

  /// How long a worker waits for a server's reply before it ends the job: the stall timeout, or twice it where a
  /// server may hold replies back (a held reply waits for the slowest worker, whom the server's own watch judges,
  /// so the lost worker is named by the server rather than by its peers). 0: off.
  [[nodiscard]] double reply_timeout_s() const {
    return staleness_bound >= 0 ? 2.0 * stall_timeout_s : stall_timeout_s;
  }
};

}  // namespace psbench::ps
