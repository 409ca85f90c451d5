#include "ps/ssp_gate.hpp"

#include <algorithm>

namespace psbench::ps {

SspGate::SspGate(std::size_t workers, int bound)
    : bound_(bound), clocks_(workers, 0), done_(workers, 0), held_(workers, 0), held_since_(workers, 0.0) {}

std::uint64_t SspGate::min_clock() const {
  std::uint64_t slowest = UINT64_MAX;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (done_[w] == 0) slowest = std::min(slowest, clocks_[w]);
  }
  return slowest;
}

std::uint64_t SspGate::lead(std::size_t worker) const {
  return clocks_[worker] - std::min(min_clock(), clocks_[worker]);
}

bool SspGate::allowed(std::size_t worker, bool stopping) const {
  return stopping || lead(worker) <= static_cast<std::uint64_t>(bound_);
}

void SspGate::note_arrival(bool stopping, GateStats& stats) const {
  if (!bounded()) return;
  for (std::size_t w = 0; w < held_.size(); ++w) {
    if (held_[w] != 0 && allowed(w, stopping)) ++stats.overdue_holds;
  }
}

void SspGate::count_push(std::size_t worker, GateStats& stats) {
  ++clocks_[worker];
  std::uint64_t slowest = UINT64_MAX;
  std::uint64_t fastest = 0;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (done_[w] != 0) continue;
    slowest = std::min(slowest, clocks_[w]);
    fastest = std::max(fastest, clocks_[w]);
  }
  if (slowest != UINT64_MAX) stats.max_clock_spread = std::max(stats.max_clock_spread, fastest - slowest);
}

bool SspGate::must_hold(std::size_t worker) const { return bounded() && !allowed(worker, false); }

void SspGate::hold(std::size_t worker, double now, GateStats& stats) {
  held_[worker] = 1;
  held_since_[worker] = now;
  ++stats.held_replies;
  stats.min_held_lead = std::min(stats.min_held_lead, lead(worker));
}

void SspGate::note_sent(std::size_t worker, GateStats& stats) const {
  stats.max_lead = std::max(stats.max_lead, lead(worker));
}

}  // namespace psbench::ps
