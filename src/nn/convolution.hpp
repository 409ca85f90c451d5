#pragma once

#include "nn/layer.hpp"

namespace psbench::nn {

/// 2-D convolution, stride 1, square kernel, equal padding on every side, with bias. Activations take the
/// layout oneDNN picks (format_tag::any); the weights live in the flat vector as plain oihw and are reordered
/// to and from the primitive's preferred layout on every step when it differs (they are small).
class Convolution : public Layer {
 public:
  /// Builds the layer producing out_channels maps; input.diff_src empty skips the data gradient.
  Convolution(const BuildContext& context, const LayerInput& input, const ParameterSlot& parameters, int out_channels,
              int kernel, int padding);
};

}  // namespace psbench::nn
