#pragma once

#include <vector>

namespace psbench {

/// The median of values (the mean of the middle two for an even count); throws std::invalid_argument for none.
double median(std::vector<double> values);

/// The fraction-quantile of values (0 the least, 1 the greatest), interpolated linearly between the order
/// statistics at fraction x (count - 1), as numpy's default; throws std::invalid_argument for none or a fraction
/// outside [0, 1].
double percentile(std::vector<double> values, double fraction);

}  // namespace psbench
