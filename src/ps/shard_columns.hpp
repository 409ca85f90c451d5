#pragma once

#include "compress/column_layout.hpp"
#include "ps/shard_layout.hpp"

namespace psbench::ps {

/// The columns of a compressed push (--compress onebit): columns with every column that straddles a shard
/// boundary split there, so that each shard is whole columns and each server dequantizes its shard alone (the two
/// parts of a split column have their own reconstruction values).
compress::ColumnLayout cut_at_shards(const compress::ColumnLayout& columns, const ShardLayout& layout);

/// The columns of shard k of a layout cut_at_shards made, rebased to the shard's first value.
compress::ColumnLayout shard_columns(const compress::ColumnLayout& cut, const ShardLayout& layout, int shard);

}  // namespace psbench::ps
