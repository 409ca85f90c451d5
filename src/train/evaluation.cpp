#include "train/evaluation.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/phase_timer.hpp"

namespace psbench::train {
namespace {

// Test samples normalised per Model::evaluate call. It equals nn's evaluation pass (128 samples), so each
// call is one pass, only the last is padded, and the loss sums add in the order of one call over the whole
// split: the result is bit-identical to evaluating a fully normalised copy, without holding one.
constexpr std::size_t kChunkSamples = 128;

}  // namespace

Evaluation evaluate_on(nn::Model& model, const data::Samples& test, const nn::InputShape& input) {
  if (test.shape.channels != input.channels || test.shape.height != input.height || test.shape.width != input.width) {
    throw UserError("the test split's samples are " + std::to_string(test.shape.channels) + "x" +
                    std::to_string(test.shape.height) + "x" + std::to_string(test.shape.width) +
                    " but the training split's are " + std::to_string(input.channels) + "x" +
                    std::to_string(input.height) + "x" + std::to_string(input.width));
  }
  const double start = monotonic_seconds();
  const std::size_t values = test.shape.values();
  std::vector<float> chunk(kChunkSamples * values);
  nn::Evaluation result;
  for (std::size_t first = 0; first < test.count(); first += kChunkSamples) {
    const std::size_t count = std::min(kChunkSamples, test.count() - first);
    test.images.normalise(first, count, std::span<float>(chunk).first(count * values));
    const nn::Evaluation part = model.evaluate(chunk.data(), test.labels.data() + first, count);
    result.loss_sum += part.loss_sum;
    result.correct += part.correct;
    result.samples += part.samples;
  }
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
