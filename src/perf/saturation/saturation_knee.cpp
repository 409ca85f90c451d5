#include "perf/saturation/saturation_knee.hpp"

#include <algorithm>
#include <cstddef>

namespace psbench::perf {
namespace {

constexpr double kKneeShare = 0.9;  // the knee: within 10% of the plateau

}  // namespace

SaturationKnee find_saturation_knee(const std::vector<int>& clients, const std::vector<double>& rates) {
  if (clients.empty() || clients.size() != rates.size()) return {};
  const std::size_t top = std::max<std::size_t>(1, rates.size() / 3);
  std::vector<double> largest(rates.end() - static_cast<std::ptrdiff_t>(top), rates.end());
  std::sort(largest.begin(), largest.end());
  const std::size_t n = largest.size();
  SaturationKnee knee;
  knee.plateau_updates_per_s = n % 2 == 1 ? largest[n / 2] : 0.5 * (largest[n / 2 - 1] + largest[n / 2]);
  for (std::size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] >= kKneeShare * knee.plateau_updates_per_s) {
      knee.clients = clients[i];
      break;
    }
  }
  return knee;
}

}  // namespace psbench::perf
