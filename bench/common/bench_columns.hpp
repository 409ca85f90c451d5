#pragma once

#include <cstddef>

#include "compress/column_layout.hpp"

namespace psbench::bench {

/// The 1-bit benchmarks' columns over values floats: mlp:512,256's first layer as 1-bit SGD quantizes it (its 512 x
/// 784 weights, a column of 512 values per input) as many times as it fits, then as many more columns of 512 as
/// the rest holds, then what is left as one vector.
compress::ColumnLayout bench_columns(std::size_t values);

}  // namespace psbench::bench
