#include "perf/wire_bytes.hpp"

#include <algorithm>
#include <cstdint>

namespace psbench::perf {

compress::ColumnLayout onebit_columns(const std::vector<compress::Matrix>& matrices) {
  return compress::ColumnLayout(matrices);
}

double onebit_push_bytes(const compress::ColumnLayout& columns, int servers) {
  std::vector<std::size_t> cuts;
  for (int k = 1; k < servers; ++k) cuts.push_back(columns.values() * static_cast<std::size_t>(k) / servers);
  return static_cast<double>(columns.cut_at(cuts).words() * sizeof(std::uint32_t));
}

double onebit_sync_bytes(const compress::ColumnLayout& columns, int workers) {
  const std::vector<std::size_t> bounds = compress::stripe_bounds(columns, workers);
  std::size_t busiest = 0;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    const std::size_t own = columns.word_begin(bounds[j + 1]) - columns.word_begin(bounds[j]);
    busiest = std::max(busiest, columns.words() - own + static_cast<std::size_t>(workers - 1) * own);
  }
  return static_cast<double>(busiest * sizeof(std::uint32_t));
}

std::size_t onebit_largest_stripe_values(const compress::ColumnLayout& columns, int workers) {
  const std::vector<std::size_t> bounds = compress::stripe_bounds(columns, workers);
  std::size_t largest = 0;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j)
    largest = std::max(largest, columns.values_before(bounds[j + 1]) - columns.values_before(bounds[j]));
  return largest;
}

}  // namespace psbench::perf
