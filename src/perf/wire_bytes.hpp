#pragma once

#include <cstddef>
#include <vector>

#include "compress/column_layout.hpp"

namespace psbench::perf {

/// The 1-bit columns of a model (ModelShape::onebit_matrices) as compress lays them out.
compress::ColumnLayout onebit_columns(const std::vector<compress::Matrix>& matrices);

/// Bytes of one 1-bit push to servers shards: every column packed (compress::packed_words), the columns cut where
/// the shards split the vector (into servers equal parts).
double onebit_push_bytes(const compress::ColumnLayout& columns, int servers);

/// Bytes the busiest of workers ranks sends (and receives) per step of 1-bit sync SGD: the other workers' stripes
/// of its packed gradient (MPI_Ialltoallv), then its packed stripe sum to each of them (MPI_Iallgatherv), stripes as
/// compress::stripe_bounds cuts them.
double onebit_sync_bytes(const compress::ColumnLayout& columns, int workers);

/// Values in the largest of the workers stripes of 1-bit sync SGD: what one worker sums and re-quantizes.
std::size_t onebit_largest_stripe_values(const compress::ColumnLayout& columns, int workers);

}  // namespace psbench::perf
