#pragma once

#include <cstddef>

namespace psbench::ps {

/// Balanced contiguous split of P parameters over S shards: the first P mod S shards hold one extra value.
class ShardLayout {
 public:
  /// Splits parameters values over shards (>= 1) shards.
  ShardLayout(std::size_t parameters, int shards);
  /// Index of the first parameter of shard k.
  [[nodiscard]] std::size_t begin(int shard) const;
  /// Number of parameters in shard k.
  [[nodiscard]] std::size_t size(int shard) const;
  /// S.
  [[nodiscard]] int shards() const { return shards_; }
  /// P.
  [[nodiscard]] std::size_t parameters() const { return parameters_; }

 private:
  std::size_t parameters_;
  int shards_;
};

}  // namespace psbench::ps
