#include "ps/staleness.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::ps {

StalenessHistogram::StalenessHistogram(std::size_t buckets) : counts_(buckets, 0) {
  PSBENCH_CHECK(buckets >= 2) << "a staleness histogram needs at least 2 buckets";
}

void StalenessHistogram::record(std::uint64_t staleness) {
  const std::size_t bucket = std::min<std::uint64_t>(staleness, counts_.size() - 1);
  counts_[bucket] += 1;
  total_ += 1;
  sum_ += staleness;
  max_ = std::max(max_, staleness);
}

void StalenessHistogram::merge(const StalenessHistogram& other) {
  PSBENCH_CHECK(other.counts_.size() == counts_.size()) << "histograms of different bucket counts";
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

double StalenessHistogram::mean() const {
  return total_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(total_);
}

std::vector<std::uint64_t> StalenessHistogram::counts() const {
  auto last = counts_.size();
  while (last > 0 && counts_[last - 1] == 0) --last;
  return {counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(last)};
}

std::uint64_t staleness_bound(int s, std::uint64_t workers, bool pipeline) {
  const auto clocks = static_cast<std::uint64_t>(s);
  const std::uint64_t others = workers > 0 ? workers - 1 : 0;
  return pipeline ? (2 * clocks + 2) * others + 1 : (2 * clocks + 1) * others;
}

}  // namespace psbench::ps
