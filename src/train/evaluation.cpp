#include "train/evaluation.hpp"

#include <string>

#include "common/error.hpp"
#include "common/phase_timer.hpp"

namespace psbench::train {

Evaluation evaluate_on(nn::Model& model, const data::Samples& test, const nn::InputShape& input) {
  if (test.shape.channels != input.channels || test.shape.height != input.height || test.shape.width != input.width) {
    throw UserError("the test split's samples are " + std::to_string(test.shape.channels) + "x" +
                    std::to_string(test.shape.height) + "x" + std::to_string(test.shape.width) +
                    " but the training split's are " + std::to_string(input.channels) + "x" +
                    std::to_string(input.height) + "x" + std::to_string(input.width));
  }
  const double start = monotonic_seconds();
  const nn::Evaluation result = model.evaluate(test.images.data(), test.labels.data(), test.count());
  Evaluation evaluation;
  evaluation.samples = result.samples;
  if (result.samples > 0) {
    evaluation.accuracy = static_cast<double>(result.correct) / static_cast<double>(result.samples);
    evaluation.mean_loss = result.loss_sum / static_cast<double>(result.samples);
  }
  evaluation.seconds = monotonic_seconds() - start;
  return evaluation;
}

}  // namespace psbench::train
