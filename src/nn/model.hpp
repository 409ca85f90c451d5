#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "nn/gradient_listener.hpp"

namespace psbench::nn {

/// Shape of one input sample (channels x height x width).
struct InputShape {
  int channels = 0;  ///< C
  int height = 0;    ///< H
  int width = 0;     ///< W
};

/// Loss and correct predictions over a set of samples.
struct Evaluation {
  double loss_sum = 0.0;     ///< summed cross-entropy
  std::int64_t correct = 0;  ///< samples whose arg-max matched the label
  std::int64_t samples = 0;  ///< samples evaluated
};

/// A network built from a spec ("mlp:512,256" or "cnn") whose weights and biases live in one contiguous
/// float32 vector of P values and whose gradients live in another; oneDNN memory wraps pointers into them.
/// Primitives and buffers are created once per batch size; a training step allocates no buffers (only
/// oneDNN's own per-call argument maps, a few dozen bytes each: tests/unit/nn/allocation_test.cpp).
class Model {
 public:
  /// Builds the network for an input shape, class count and training batch; initialises parameters
  /// from seed (He for ReLU layers); threads sets oneDNN's threads for this process; gradient_storage,
  /// when not empty, is a caller-owned span of P floats (a shared window, say) that holds the gradients
  /// and outlives the model. Throws UserError for an unknown spec or a shape the spec cannot take.
  Model(const std::string& spec, InputShape input, int num_classes, int batch, std::uint64_t seed, int threads,
        std::span<float> gradient_storage = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  /// P, the number of parameters.
  [[nodiscard]] std::size_t parameter_count() const;
  /// The flat parameter vector (P values); writing to it changes the weights the next step uses.
  [[nodiscard]] std::span<float> parameters();
  /// The flat gradient vector (P values) written by train_step.
  [[nodiscard]] std::span<const float> gradients() const;
  /// The same vector, writable: a trainer scales a gradient in place or fills it before an exchange.
  [[nodiscard]] std::span<float> gradients();
  /// The training batch size given at construction.
  [[nodiscard]] int batch() const;
  /// Floats from one sample's start to the next in train_step's images: the sample's values, or a cache line more
  /// for an MLP whose samples fill whole 4 KiB pages (nn/network.hpp, input_row_values).
  [[nodiscard]] std::size_t input_row_values() const;
  /// Forward and backward FLOPs of one training step at the training batch (for GFLOP/s).
  [[nodiscard]] double flops_per_step() const;

  /// Forward and backward over one batch (batch() samples, NCHW float32, each input_row_values() floats after the
  /// previous one's start, what lies between them unread; labels in [0, classes)):
  /// writes the mean-over-batch gradient to gradients() and returns the mean loss.
  /// With a listener, tells it the loss before the backward pass and, after each layer's, which gradients
  /// are final (from the last parameter down).
  float train_step(const float* images, const std::int32_t* labels, GradientListener* listener = nullptr);
  /// Forward only over count contiguous samples of any number (processed in internal batches).
  Evaluation evaluate(const float* images, const std::int32_t* labels, std::size_t count);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Number of parameters a spec gives for an input shape and class count, in closed form (no oneDNN).
/// Throws UserError for an unknown spec.
std::size_t parameter_count_for(const std::string& spec, InputShape input, int num_classes);

}  // namespace psbench::nn
