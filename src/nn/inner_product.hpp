#pragma once

#include "nn/layer.hpp"

namespace psbench::nn {

/// Fully connected layer with bias, built from oneDNN matmuls so that every buffer, scratchpad included, is
/// ours and sized once (oneDNN's gemm-based inner product allocates packing buffers on every call). The
/// weights stay in the flat vector as plain oi rows (oihw over an image input: the order of flattening NCHW)
/// and the matmuls read and write them there in place; the output is plain nc.
class InnerProduct : public Layer {
 public:
  /// Builds the layer producing outputs features. A 2-D input must be plain nc; an image input in any layout
  /// is reordered to plain NCHW when needed, and its buffer must not change after construction.
  /// input.diff_src empty skips the data gradient.
  InnerProduct(const BuildContext& context, const LayerInput& input, const ParameterSlot& parameters, int outputs);
};

}  // namespace psbench::nn
