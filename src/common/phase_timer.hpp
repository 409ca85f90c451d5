#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>

namespace psbench {

/// The timed phases of a run, as named in the results file (docs/results.md, "phases").
/// kCompress is the quantize and dequantize time of a compressed exchange (--compress onebit), on workers and servers.
enum class Phase : std::uint8_t {
  kInitIo,
  kInitTotal,
  kCompute,
  kPush,
  kPull,
  kCompress,
  kServerUpdate,
  kServerIdle,
  kTotal
};

/// Number of entries in Phase.
inline constexpr std::size_t kPhaseCount = 9;

/// The results-file key of a phase, such as "init_io".
std::string_view phase_name(Phase phase);

/// Seconds on the monotonic clock since an arbitrary fixed origin.
double monotonic_seconds();

/// Accumulates monotonic wall time and occurrence counts per phase; no allocation after construction.
class PhaseTimer {
 public:
  /// Adds seconds (one occurrence) to a phase.
  void add(Phase phase, double seconds) {
    seconds_[index(phase)] += seconds;
    counts_[index(phase)] += 1;
  }
  /// Total seconds recorded for a phase.
  [[nodiscard]] double seconds(Phase phase) const { return seconds_[index(phase)]; }
  /// Seconds recorded in every phase since earlier (a copy of this timer).
  [[nodiscard]] double total_since(const PhaseTimer& earlier) const {
    double total = 0.0;
    for (std::size_t i = 0; i < seconds_.size(); ++i) total += seconds_[i] - earlier.seconds_[i];
    return total;
  }
  /// Number of occurrences recorded for a phase.
  [[nodiscard]] std::uint64_t count(Phase phase) const { return counts_[index(phase)]; }

 private:
  static constexpr std::size_t index(Phase phase) { return static_cast<std::size_t>(phase); }
  std::array<double, kPhaseCount> seconds_{};
  std::array<std::uint64_t, kPhaseCount> counts_{};
};

/// Times the enclosing scope into one phase of a PhaseTimer.
class ScopedPhase {
 public:
  /// Starts timing phase into timer.
  ScopedPhase(PhaseTimer& timer, Phase phase) : timer_(timer), phase_(phase), start_(monotonic_seconds()) {}
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;
  /// Adds the elapsed time to the phase.
  ~ScopedPhase() { timer_.add(phase_, monotonic_seconds() - start_); }

 private:
  PhaseTimer& timer_;
  Phase phase_;
  double start_;
};

}  // namespace psbench
