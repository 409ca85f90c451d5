#include "common/median.hpp"

#include <algorithm>
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

}  // namespace psbench
