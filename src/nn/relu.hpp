#pragma once

#include "nn/layer.hpp"

namespace psbench::nn {

/// max(0, x) elementwise, in whatever layout its input has (oneDNN eltwise).
class Relu : public Layer {
 public:
  /// Builds the forward pass (and, for training, the backward pass writing input.diff_src if given).
  Relu(const BuildContext& context, const LayerInput& input);
};

}  // namespace psbench::nn
