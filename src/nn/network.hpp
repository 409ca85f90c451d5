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
  /// Builds every layer; gradients may be empty for Pass::kInference.
  Network(const dnnl::engine& engine, const NetworkPlan& plan, int batch, std::span<float> parameters,
          std::span<float> gradients, Pass pass);

  /// Samples per pass.
  [[nodiscard]] int batch() const { return batch_; }
  /// Points the input at batch() samples (NCHW float32); nothing is copied.
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

}  // namespace psbench::nn
