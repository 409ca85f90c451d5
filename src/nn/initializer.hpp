#pragma once

#include <cstdint>
#include <span>

#include "nn/network_plan.hpp"

namespace psbench::nn {

/// Fills the flat parameter vector for a plan from a seed: He normal (std sqrt(2/fan_in)) for layers feeding a
/// ReLU, Glorot uniform (limit sqrt(6/(fan_in+fan_out))) for the output layer, zero biases. Uses its own
/// generator (splitmix64, Box-Muller), so a seed gives the same values on every platform and library.
void initialise_parameters(const NetworkPlan& plan, std::uint64_t seed, std::span<float> parameters);

}  // namespace psbench::nn
