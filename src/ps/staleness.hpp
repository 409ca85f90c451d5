#pragma once

#include <cstdint>
#include <vector>

namespace psbench::ps {

/// Histogram of update staleness (server version now minus the version the gradient was computed from);
/// fixed buckets so recording allocates nothing, with the last bucket collecting everything beyond.
class StalenessHistogram {
 public:
  /// Buckets 0..buckets-2 count exact values; bucket buckets-1 counts everything larger.
  explicit StalenessHistogram(std::size_t buckets = 1024);
  /// Counts one update of the given staleness.
  void record(std::uint64_t staleness);
  /// Adds another histogram's counts (same bucket count).
  void merge(const StalenessHistogram& other);
  /// Number of updates recorded.
  [[nodiscard]] std::uint64_t total() const { return total_; }
  /// Mean staleness (exact, from the running sum), 0 when empty.
  [[nodiscard]] double mean() const;
  /// Sum of all recorded staleness values (exact).
  [[nodiscard]] std::uint64_t sum() const { return sum_; }
  /// Largest staleness recorded (exact).
  [[nodiscard]] std::uint64_t max() const { return max_; }
  /// Counts per bucket, trailing empty buckets removed.
  [[nodiscard]] std::vector<std::uint64_t> counts() const;
  /// Raw counts per bucket (all buckets), for reductions.
  [[nodiscard]] const std::vector<std::uint64_t>& raw_counts() const { return counts_; }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
};

/// The largest staleness `--staleness s` allows with W workers served by the servers' clock rule (src/ps/server.cpp
/// derives it): (2s + 1)(W - 1), or (2s + 2)(W - 1) + 1 when each worker keeps one exchange in flight (--pipeline).
std::uint64_t staleness_bound(int s, std::uint64_t workers, bool pipeline);

}  // namespace psbench::ps
