#pragma once

#include <cstdint>

namespace psbench {

/// Bytes each rank sends (and receives) in a ring allreduce of bytes over ranks ranks: 2 (ranks - 1) / ranks x
/// bytes, rounded down (reduce-scatter, then all-gather, each moving (ranks - 1) of ranks segments); 0 alone.
/// What train counts for its collectives and what the model puts on the wire for them.
std::uint64_t ring_allreduce_bytes(std::uint64_t bytes, int ranks);

}  // namespace psbench
