#include "nn/softmax_cross_entropy.hpp"

#include <cmath>
#include <cstddef>

#include "common/check.hpp"

namespace psbench::nn {

BatchLoss softmax_cross_entropy(const float* logits, const std::int32_t* labels, int samples, int classes, float* diff,
                                float diff_scale) {
  BatchLoss result;
  for (int n = 0; n < samples; ++n) {
    const std::size_t row_start = static_cast<std::size_t>(n) * static_cast<std::size_t>(classes);
    const float* row = logits + row_start;
    const std::int32_t label = labels[n];
    PSBENCH_CHECK(label >= 0 && label < classes)
        << "label " << label << " of sample " << n << " is outside [0, " << classes << ")";
    int arg_max = 0;
    for (int c = 1; c < classes; ++c) {
      if (row[c] > row[arg_max]) arg_max = c;
    }
    const double max_logit = row[arg_max];
    double exp_sum = 0.0;
    for (int c = 0; c < classes; ++c) exp_sum += std::exp(static_cast<double>(row[c]) - max_logit);
    result.loss_sum += max_logit + std::log(exp_sum) - static_cast<double>(row[label]);
    if (arg_max == label) ++result.correct;
    if (diff == nullptr) continue;
    float* diff_row = diff + row_start;
    for (int c = 0; c < classes; ++c) {
      const double probability = std::exp(static_cast<double>(row[c]) - max_logit) / exp_sum;
      diff_row[c] = static_cast<float>((probability - (c == label ? 1.0 : 0.0)) * diff_scale);
    }
  }
  return result;
}

}  // namespace psbench::nn
