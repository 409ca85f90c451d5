#include "bench_columns.hpp"

#include <vector>

namespace psbench::bench {

compress::ColumnLayout bench_columns(std::size_t values) {
  constexpr std::size_t kColumn = 784;
  std::vector<std::size_t> sizes(values / kColumn, kColumn);
  if (values % kColumn != 0) sizes.push_back(values % kColumn);
  return compress::ColumnLayout(sizes);
}

}  // namespace psbench::bench
