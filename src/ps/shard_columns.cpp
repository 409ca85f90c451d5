#include "ps/shard_columns.hpp"

#include <vector>

#include "common/check.hpp"

namespace psbench::ps {

compress::ColumnLayout cut_at_shards(const compress::ColumnLayout& columns, const ShardLayout& layout) {
  PSBENCH_CHECK(columns.values() == layout.parameters())
      << "columns over " << columns.values() << " values for " << layout.parameters() << " parameters";
  std::vector<std::size_t> cuts;
  for (int k = 1; k < layout.shards(); ++k) cuts.push_back(layout.begin(k));
  return columns.cut_at(cuts);
}

compress::ColumnLayout shard_columns(const compress::ColumnLayout& cut, const ShardLayout& layout, int shard) {
  return cut.within(layout.begin(shard), layout.begin(shard) + layout.size(shard));
}

}  // namespace psbench::ps
