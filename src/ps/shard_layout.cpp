#include "ps/shard_layout.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::ps {

ShardLayout::ShardLayout(std::size_t parameters, int shards) : parameters_(parameters), shards_(shards) {
  PSBENCH_CHECK(shards >= 1) << "a layout needs at least one shard, got " << shards;
  const auto count = static_cast<std::size_t>(shards);
  // Too few values for a granule per shard: shards of single values (a test's toy model), sizes within one.
  const std::size_t granule = parameters >= kShardGranule * count ? kShardGranule : 1;
  const std::size_t units = (parameters + granule - 1) / granule;  // the last one may be partial
  begins_.reserve(count + 1);
  for (std::size_t k = 0; k <= count; ++k) {
    begins_.push_back(std::min(parameters, granule * (k * (units / count) + std::min(k, units % count))));
  }
}

}  // namespace psbench::ps
