#pragma once

#include "nn/network_plan.hpp"

namespace psbench::nn::testing {

/// Fashion-MNIST's sample shape: one channel of 28 x 28.
inline constexpr InputShape kMnist{1, 28, 28};

}  // namespace psbench::nn::testing
