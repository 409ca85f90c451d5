#include "common/median.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace psbench {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("the median of no values");
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) throw std::invalid_argument("a percentile of no values");
  if (!(fraction >= 0.0 && fraction <= 1.0)) throw std::invalid_argument("a percentile outside [0, 1]");
  std::sort(values.begin(), values.end());
  const double position = fraction * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

}  // namespace psbench
