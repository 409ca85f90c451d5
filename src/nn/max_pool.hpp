#pragma once

#include "nn/layer.hpp"

namespace psbench::nn {

/// Max pooling over non-overlapping window x window tiles (stride = window, no padding; a ragged edge is
/// dropped), keeping the input's layout; training keeps oneDNN's workspace of arg-max positions.
class MaxPool : public Layer {
 public:
  /// Builds the forward pass (and, for training, the backward pass writing input.diff_src if given).
  MaxPool(const BuildContext& context, const LayerInput& input, int window);
};

}  // namespace psbench::nn
