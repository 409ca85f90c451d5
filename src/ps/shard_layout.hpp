#pragma once

#include <cstddef>
#include <vector>

namespace psbench::ps {

/// Values in a shard granule: 16 floats, 64 bytes, the alignment of psbench's buffers (common/aligned_buffer.hpp).
inline constexpr std::size_t kShardGranule = 16;

/// Balanced contiguous split of P parameters over S shards in whole granules, so that every shard starts on a
/// 64-byte boundary of an aligned vector (a pull into a worker's parameters then copies between two aligned
/// buffers: aligned_buffer.hpp says why that matters). The first shards hold one granule more; the last one ends
/// with the partial granule. Below one granule per shard (P < 16 S), granules of one value.
class ShardLayout {
 public:
  /// Splits parameters values over shards (>= 1) shards.
  ShardLayout(std::size_t parameters, int shards);
  /// Index of the first parameter of shard k (k = S gives P).
  [[nodiscard]] std::size_t begin(int shard) const { return begins_[static_cast<std::size_t>(shard)]; }
  /// Number of parameters in shard k.
  [[nodiscard]] std::size_t size(int shard) const { return begin(shard + 1) - begin(shard); }
  /// S.
  [[nodiscard]] int shards() const { return shards_; }
  /// P.
  [[nodiscard]] std::size_t parameters() const { return parameters_; }

 private:
  std::size_t parameters_;
  int shards_;
  std::vector<std::size_t> begins_;  // S + 1 boundaries: shard k is [begins_[k], begins_[k + 1])
};

}  // namespace psbench::ps
