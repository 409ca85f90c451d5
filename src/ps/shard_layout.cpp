#include "ps/shard_layout.hpp"

#include "common/check.hpp"

namespace psbench::ps {

ShardLayout::ShardLayout(std::size_t parameters, int shards) : parameters_(parameters), shards_(shards) {
  PSBENCH_CHECK(shards >= 1) << "a layout needs at least one shard, got " << shards;
}

std::size_t ShardLayout::begin(int shard) const {
  const auto k = static_cast<std::size_t>(shard);
  const auto count = static_cast<std::size_t>(shards_);
  const std::size_t base = parameters_ / count;
  const std::size_t extra = parameters_ % count;
  return k * base + (k < extra ? k : extra);
}

std::size_t ShardLayout::size(int shard) const {
  const auto k = static_cast<std::size_t>(shard);
  const auto count = static_cast<std::size_t>(shards_);
  return parameters_ / count + (k < parameters_ % count ? 1 : 0);
}

}  // namespace psbench::ps
