#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ps/topology.hpp"

namespace psbench::ps {

/// Default stall timeout (seconds): far above any step psbench takes (the slowest, a CNN step on one
/// oversubscribed core, takes well under a second), so it only ever fires on a rank that has stopped.
inline constexpr double kDefaultStallTimeoutSeconds = 300.0;

/// Sets, for this process, how long a server lets a worker be silent and a worker waits for a server's
/// reply before ending the job (--stall-timeout); 0 turns the watch off. Set it before serving.
void set_stall_timeout(double seconds);
/// The stall timeout in force, in seconds (0: off).
[[nodiscard]] double stall_timeout();

/// Sets, for this process, whether a server may hold this worker's replies back (--staleness): a held reply
/// waits for the slowest worker, whom the server's watch judges, so the worker's own watch then waits twice the
/// stall timeout before it blames the server (and a lost worker is named by the server, not its peers).
void set_replies_may_be_held(bool held);
/// How long a worker waits for a server's reply before ending the job (seconds; 0: off): the stall timeout, or
/// twice it where replies may be held.
[[nodiscard]] double reply_timeout();

/// How many polls of a wait pass between two looks at the clock.
inline constexpr int kPollsPerStallCheck = 16;

/// A server's record of when it last heard from each worker, and the watch that ends the job (PeerStalled,
/// naming the worker) when one that has not said done stays silent for the stall timeout.
class SilenceWatch {
 public:
  /// For the server of topology, from now (monotonic seconds).
  SilenceWatch(const Topology& topology, double now);
  /// Notes a push from world rank source at now.
  void heard(int source, double now);
  /// Notes that source said done: it is no longer watched.
  void finished(int source);
  /// Throws PeerStalled naming the watched worker silent longest if it has been silent for the timeout at now.
  void check(double now) const;

 private:
  Topology topology_;
  double timeout_;
  std::uint64_t pushes_ = 0;                 // pushes heard from anyone
  std::vector<double> last_heard_;           // per worker
  std::vector<std::uint64_t> pushes_since_;  // per worker: pushes_ when it was last heard
  std::vector<bool> watched_;                // per worker: not yet done
};

/// The error a worker throws when server `shard` (world rank) has not answered for seconds.
[[nodiscard]] std::string silent_server_message(int worker_rank, int shard, int server_rank, double seconds);

}  // namespace psbench::ps
