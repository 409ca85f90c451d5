#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ps/protocol_settings.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// How many polls of a wait pass between two looks at the clock.
inline constexpr int kPollsPerStallCheck = 16;

/// A server's record of when it last heard from each worker, and the watch that ends the job (PeerStalled,
/// naming the worker) when one that has not said done stays silent for the stall timeout.
class SilenceWatch {
 public:
  /// For the server of topology, from now (monotonic seconds), ending the job after timeout_s of silence (0: never).
  SilenceWatch(const Topology& topology, double now, double timeout_s);
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

/// The error a worker throws when server `shard` (world rank) has not answered for seconds (timeout_s: the
/// stall timeout in force, named as the flag that sets it).
[[nodiscard]] std::string silent_server_message(int worker_rank, int shard, int server_rank, double seconds,
                                                double timeout_s);
/// The error a server throws when worker `worker` (world rank) has not taken its writes of a reply for seconds.
[[nodiscard]] std::string unread_reply_message(int shard, int worker, int worker_rank, double seconds,
                                               double timeout_s);

}  // namespace psbench::ps
