#pragma once

#include <cstdint>
#include <vector>

#include "common/phase_timer.hpp"

namespace psbench::ps {

/// What the bounded-staleness gate measured (ServerStats carries them).
struct GateStats {
  std::uint64_t held_replies = 0;              ///< replies held back by the bound (0 without it)
  double held_seconds = 0.0;                   ///< summed over held replies: from the push's update to the reply
  std::vector<double> held_seconds_by_worker;  ///< held_seconds per worker index (W entries)
  std::uint64_t max_clock_spread = 0;          ///< largest (max - min) clock of the workers not done, after each push
  std::uint64_t max_lead = 0;  ///< largest (own clock - min clock) of a worker when its reply went out (not
                               ///< counting the replies an abort released)
  std::uint64_t min_held_lead = UINT64_MAX;  ///< smallest (own clock - min clock) of a worker when its reply was held
  std::uint64_t overdue_holds = 0;  ///< replies found still held at a message's arrival though the bound allowed them
};

/// A server's bounded-staleness gate (SSP, --staleness s): a worker's clock is its gradient pushes so far; the reply
/// to the push that brought it to c is held until every worker not done has clock >= c - s (a worker done counts
/// as infinitely far ahead). The push itself is applied at once, and a held reply carries the shard as it is when
/// released. With a negative bound the gate holds nothing and counts nothing. Sized once; allocates nothing later.
///
/// What that gives the staleness histogram, per server (each server sees every worker's every push, so each one
/// keeps the bound alone): without --pipeline, worker w's push c+1 carries the version V of the reply to its push c,
/// released at a moment when every other worker u had clock >= c - s. Its staleness counts the pushes of the others
/// applied from that release to the arrival of push c+1. Meanwhile w's clock is c, so the slowest clock is <= c; u's
/// push k needs the reply to its push k - 1, released only once the slowest is >= k - 1 - s, so k <= c + s + 1.
/// Hence u makes at most (c + s + 1) - (c - s) = 2s + 1 of them, and staleness <= (2s + 1)(W - 1) (W - 1 at s = 0:
/// bulk-synchronous through the servers). It is reached: the others all at c - s when w's reply goes out, then each
/// running up to c + s + 1. With --pipeline, push c+1 carries the version of the reply to push c - 1 (released with
/// the others at >= c - 1 - s), and w's own push c lands in between as well: at most (2s + 2) of each other worker's
/// and 1 of its own, staleness <= (2s + 2)(W - 1) + 1 (2W - 1 at s = 0, the unbounded pipeline's round-robin
/// figure). The clocks, measured right after each push: max - min <= s + 1 (the pusher's reply is then held when it
/// is s + 1 ahead), and a reply goes out only while its worker leads the slowest by <= s.
class SspGate {
 public:
  /// For workers workers and bound s (negative: unbounded).
  SspGate(std::size_t workers, int bound);
  /// Whether a bound is in force.
  [[nodiscard]] bool bounded() const { return bound_ >= 0; }
  /// A message has arrived: counts the held replies the bound already allows (none, when each is released as soon
  /// as it may be; all of them while stopping is not yet acted on).
  void note_arrival(bool stopping, GateStats& stats) const;
  /// Counts a gradient push of worker (its clock advances) and notes the clocks' spread.
  void count_push(std::size_t worker, GateStats& stats);
  /// Whether the reply to worker's latest push must be held now.
  [[nodiscard]] bool must_hold(std::size_t worker) const;
  /// Holds worker's reply from now (monotonic seconds).
  void hold(std::size_t worker, double now, GateStats& stats);
  /// worker's reply goes out at once: notes its lead.
  void note_sent(std::size_t worker, GateStats& stats) const;
  /// worker said done or abort: it holds no one back any more.
  void finished(std::size_t worker) { done_[worker] = 1; }
  /// Calls release(w) for every held reply the bound allows now (every one while stopping), counting how long each
  /// was held.
  template <typename Release>
  void release_allowed(bool stopping, GateStats& stats, Release&& release);

 private:
  /// The smallest clock of the workers not done (UINT64_MAX when every worker is done).
  [[nodiscard]] std::uint64_t min_clock() const;
  /// The lead of worker over the slowest worker not done.
  [[nodiscard]] std::uint64_t lead(std::size_t worker) const;
  /// Whether the bound allows worker's reply now.
  [[nodiscard]] bool allowed(std::size_t worker, bool stopping) const;

  int bound_;
  std::vector<std::uint64_t> clocks_;  // gradient pushes received
  std::vector<char> done_;             // sent done or abort: counts as infinitely far ahead
  std::vector<char> held_;             // its latest push's reply is held
  std::vector<double> held_since_;     // when it was held
};

template <typename Release>
void SspGate::release_allowed(bool stopping, GateStats& stats, Release&& release) {
  if (!bounded()) return;
  for (std::size_t w = 0; w < held_.size(); ++w) {
    if (held_[w] == 0 || !allowed(w, stopping)) continue;
    if (!stopping) note_sent(w, stats);
    held_[w] = 0;
    release(w);  // stopping: at any lead, with kAbortedVersion
    const double held = monotonic_seconds() - held_since_[w];
    stats.held_seconds += held;
    stats.held_seconds_by_worker[w] += held;
  }
}

}  // namespace psbench::ps
