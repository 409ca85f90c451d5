#pragma once

#include <vector>

namespace psbench {

/// The median of values (the mean of the middle two for an even count); throws std::invalid_argument for none.
double median(std::vector<double> values);

}  // namespace psbench
