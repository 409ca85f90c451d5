#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nn/model.hpp"

namespace psbench::nn {

/// The kinds of layer a spec can contain.
enum class LayerKind { kConvolution, kInnerProduct, kRelu, kMaxPool };

/// Shape of one sample's activations (channels x height x width; an inner product's output is C x 1 x 1).
struct ActivationShape {
  int channels = 0;  ///< C
  int height = 0;    ///< H
  int width = 0;     ///< W
  /// Values per sample, C*H*W.
  [[nodiscard]] std::size_t values() const;
};

/// How a layer's weights are drawn at initialisation.
enum class InitKind { kNone, kHe, kGlorot };

/// One layer of a planned network: its shapes and where its parameters lie in the flat vector.
struct LayerPlan {
  LayerKind kind = LayerKind::kRelu;  ///< what the layer computes
  ActivationShape in;                 ///< per-sample input shape
  ActivationShape out;                ///< per-sample output shape
  int kernel = 0;                     ///< convolution kernel or pooling window (square); 0 otherwise
  int padding = 0;                    ///< convolution padding on every side; 0 otherwise
  std::size_t weights_offset = 0;     ///< first weight in the flat vector (canonical oihw / oi layout)
  std::size_t weights_count = 0;      ///< number of weights; 0 for layers without parameters
  std::size_t bias_offset = 0;        ///< first bias in the flat vector, right after the weights
  std::size_t bias_count = 0;         ///< number of biases
  InitKind init = InitKind::kNone;    ///< He before a ReLU, Glorot for the output layer
  /// Multiply-accumulates per sample of the forward pass (0 for layers without weights).
  [[nodiscard]] double macs_per_sample() const;
};

/// A whole network planned in closed form from a spec, an input shape and a class count (no oneDNN).
struct NetworkPlan {
  std::vector<LayerPlan> layers;    ///< in forward order; the last is an inner product to the classes
  std::size_t parameter_count = 0;  ///< P
  /// Forward and backward FLOPs of one step over batch samples (2 per multiply-accumulate; the first
  /// layer computes no input gradient).
  [[nodiscard]] double flops_per_step(int batch) const;
};

/// The accepted spec forms, for error messages and help text.
inline constexpr const char* kAcceptedSpecs = "'mlp:H1,H2,...' (positive hidden widths, e.g. mlp:512,256) or 'cnn'";

/// Plans the network a spec describes; throws UserError for an unknown spec, a bad input shape or
/// fewer than two classes.
NetworkPlan plan_network(const std::string& spec, InputShape input, int num_classes);

}  // namespace psbench::nn
