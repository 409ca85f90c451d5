#include "bench_columns.hpp"

#include <vector>

namespace psbench::bench {

compress::ColumnLayout bench_columns(std::size_t values) {
  constexpr compress::Matrix kLayer{512, 784};
  const std::size_t layer = kLayer.rows * kLayer.width;
  std::vector<compress::Matrix> matrices(values / layer, kLayer);
  const std::size_t rest = values % layer;
  if (rest >= kLayer.rows) matrices.push_back({kLayer.rows, rest / kLayer.rows});
  if (rest % kLayer.rows != 0) matrices.push_back({rest % kLayer.rows, 1});
  return compress::ColumnLayout(matrices);
}

}  // namespace psbench::bench
