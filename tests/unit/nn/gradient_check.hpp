#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <vector>

namespace psbench::nn::testing {

/// Norm-wise relative error between a finite-difference gradient and an analytic one.
struct GradientComparison {
  double relative_error = 0.0;  ///< ||fd - analytic|| / max(||fd||, ||analytic||)
  double analytic_norm = 0.0;   ///< ||analytic|| over the checked components (to see the check is not vacuous)
};

/// Central differences of objective with respect to the listed components of values (each perturbed by
/// +-step in float32, then restored), compared with analytic[index] for the same components.
inline GradientComparison compare_gradient(std::span<float> values, std::span<const float> analytic,
                                           const std::vector<std::size_t>& indices, float step,
                                           const std::function<double()>& objective) {
  double difference = 0.0;
  double fd_norm = 0.0;
  double analytic_norm = 0.0;
  for (const std::size_t i : indices) {
    const float saved = values[i];
    values[i] = saved + step;
    const float up = values[i];
    const double above = objective();
    values[i] = saved - step;
    const float down = values[i];
    const double below = objective();
    values[i] = saved;
    const double fd = (above - below) / (static_cast<double>(up) - static_cast<double>(down));
    const double exact = analytic[i];
    difference += (fd - exact) * (fd - exact);
    fd_norm += fd * fd;
    analytic_norm += exact * exact;
  }
  const double scale = std::max(std::sqrt(fd_norm), std::sqrt(analytic_norm));
  return {scale > 0.0 ? std::sqrt(difference) / scale : 0.0, std::sqrt(analytic_norm)};
}

/// Every index in [0, count).
inline std::vector<std::size_t> all_indices(std::size_t count) {
  std::vector<std::size_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = i;
  return indices;
}

/// Up to limit distinct indices in [first, first + count), drawn with a fixed seed.
inline std::vector<std::size_t> sample_indices(std::size_t first, std::size_t count, std::size_t limit,
                                               std::uint32_t seed) {
  std::vector<std::size_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = first + i;
  std::mt19937 generator(seed);
  std::shuffle(indices.begin(), indices.end(), generator);
  indices.resize(std::min(count, limit));
  return indices;
}

/// count values uniform in [low, high) from a fixed seed.
inline std::vector<float> uniform_values(std::size_t count, float low, float high, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = distribution(generator);
  return values;
}

}  // namespace psbench::nn::testing
