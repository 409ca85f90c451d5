#include "bench_columns.hpp"

#include <vector>

namespace psbench::bench {

compress::ColumnLayout bench_columns(std::size_t values) {
  constexpr compress::Matrix kLayer{512, 784};
  std::vector<compress::Matrix> matrices(values / (kLayer.rows * kLayer.width), kLayer);
  if (values % (kLayer.rows * kLayer.width) != 0) matrices.push_back({values % (kLayer.rows * kLayer.width), 1});
  return compress::ColumnLayout(matrices);
}

}  // namespace psbench::bench
