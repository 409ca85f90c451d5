#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>
#include <vector>

#include "nn/gradient_listener.hpp"
#include "nn/layer.hpp"
#include "nn/network_plan.hpp"

namespace psbench::nn {

/// The layers of a plan built for one batch size over the flat parameter (and, for training, gradient)
/// vectors: every primitive and activation buffer is created here, once.
class Network {
 public:
  /// Builds every layer; gradients may be empty for Pass::kInference. input_row_values is the distance in floats
  /// between two samples of the input: the sample's values, or input_row_values(plan) (more only for an MLP).
  Network(const dnnl::engine& engine, const NetworkPlan& plan, int batch, std::span<float> parameters,
          std::span<float> gradients, Pass pass, std::size_t input_row_values);

  /// Samples per pass.
  [[nodiscard]] int batch() const { return batch_; }
  /// Points the input at batch() samples (NCHW float32, a row of the constructor's input_row_values each);
  /// nothing is copied.
  void set_input(const float* images);
  /// Runs every layer's forward pass.
  void forward(dnnl::stream& stream) const;
  /// Runs every layer's backward pass, last layer first (training only; needs diff_logits() filled); after
  /// each, tells listener (when given) from which parameter index on the gradients are final.
  void backward(dnnl::stream& stream, GradientListener* listener = nullptr) const;
  /// The output logits, batch() x classes, row-major.
  [[nodiscard]] const float* logits() const;
  /// Where the loss gradient with respect to the logits goes, batch() x classes (training only).
  [[nodiscard]] float* diff_logits() const;

 private:
  int batch_;
  dnnl::memory input_;
  dnnl::memory scratchpad_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<std::size_t> final_from_;  // per layer: the first final gradient once its backward pass has run
};

/// Floats between two samples of a training batch for plan: an MLP whose samples fill whole 4 KiB pages (3x32x32
/// float32: 12,288 bytes) gets 16 more, a cache line, because at a stride of whole pages the batch's rows all fall
/// into the same L1 sets in its weight-gradient product, whose speed then depends on where the batch lies
/// (docs/nn.md, "Input rows"); otherwise the sample's values.
std::size_t input_row_values(const NetworkPlan& plan);

}  // namespace psbench::nn
