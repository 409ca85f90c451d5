#pragma once

#include <cmath>
#include <cstdint>
#include <random>

#include "perf/sim/simulation.hpp"

namespace psbench::perf {

/// Draws the simulations' compute and service times with the chosen distribution: lognormal with the given mean and
/// coefficient of variation (the mean itself at cv 0), or exponential with the given mean.
class TimeSampler {
 public:
  /// A sampler of kind seeded with seed.
  TimeSampler(TimeDistribution kind, std::uint64_t seed) : kind_(kind), generator_(seed) {}
  /// One time of the given mean and cv (0 for a mean not above 0).
  double draw(double mean, double cv) {
    if (mean <= 0.0) return 0.0;
    if (kind_ == TimeDistribution::kExponential) return std::exponential_distribution<double>(1.0 / mean)(generator_);
    if (cv <= 0.0) return mean;
    const double sigma2 = std::log1p(cv * cv);
    return std::lognormal_distribution<double>(std::log(mean) - sigma2 / 2.0, std::sqrt(sigma2))(generator_);
  }

 private:
  TimeDistribution kind_;
  std::mt19937_64 generator_;
};

}  // namespace psbench::perf
