#pragma once

#include <cstdint>

namespace psbench::nn {

/// Summed loss and arg-max hits over a batch.
struct BatchLoss {
  double loss_sum = 0.0;     ///< sum over samples of -log softmax(logits)[label]
  std::int64_t correct = 0;  ///< samples whose first arg-max equals the label
};

/// Softmax with cross-entropy over samples rows of classes logits (plain row-major), computed in double.
/// When diff is not null, writes (softmax(logits) - onehot(label)) * diff_scale into it (same shape); pass
/// diff_scale = 1/batch for the gradient of the mean loss. Labels must lie in [0, classes).
BatchLoss softmax_cross_entropy(const float* logits, const std::int32_t* labels, int samples, int classes, float* diff,
                                float diff_scale);

}  // namespace psbench::nn
