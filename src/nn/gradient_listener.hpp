#pragma once

#include <cstddef>

namespace psbench::nn {

/// Told during a training step which gradients are final, so that their exchange can start while the
/// backward pass of the earlier layers still runs (Model::train_step's optional listener).
class GradientListener {
 public:
  virtual ~GradientListener() = default;
  /// The forward pass is done and the batch's mean loss is known; the backward pass starts.
  virtual void backward_started(float loss) = 0;
  /// Every gradient from index first to the last is final (called after each layer's backward pass).
  virtual void gradients_ready(std::size_t first) = 0;
};

}  // namespace psbench::nn
