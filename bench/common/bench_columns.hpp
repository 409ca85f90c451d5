#pragma once

#include <cstddef>

#include "compress/column_layout.hpp"

namespace psbench::bench {

/// The 1-bit benchmarks' columns over values floats: 784 values each (mlp:512,256's first layer has one per output
/// unit), the last one shorter.
compress::ColumnLayout bench_columns(std::size_t values);

}  // namespace psbench::bench
