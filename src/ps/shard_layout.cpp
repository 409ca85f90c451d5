#include "ps/shard_layout.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::ps {

ShardLayout::ShardLayout(std::size_t parameters, int shards) : parameters_(parameters), shards_(shards) {
  PSBENCH_CHECK(shards >= 1) << "a layout needs at least one shard, got " << shards;
  const auto count = static_cast<std::size_t>(shards);
  // Too few values for a granule per shard: shards of single values (a test's toy model), sizes within one.
  granule_ = parameters >= kShardGranule * count ? kShardGranule : 1;
}

std::size_t ShardLayout::begin(int shard) const {
  const auto k = static_cast<std::size_t>(shard);
  const auto count = static_cast<std::size_t>(shards_);
  const std::size_t units = (parameters_ + granule_ - 1) / granule_;  // the last one may be partial
  const std::size_t base = units / count;
  const std::size_t extra = units % count;
  return std::min(parameters_, granule_ * (k * base + std::min(k, extra)));
}

std::size_t ShardLayout::size(int shard) const { return begin(shard + 1) - begin(shard); }

}  // namespace psbench::ps
