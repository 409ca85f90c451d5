#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compress/column_layout.hpp"

namespace psbench::perf {

/// Per-sample input of a model: channels x height x width, and the number of classes.
struct InputShape {
  int channels = 1;  ///< C
  int height = 28;   ///< H
  int width = 28;    ///< W
  int classes = 10;  ///< K
};

/// What the model needs to know of a network spec: its parameter count and its FLOPs per sample.
struct ModelShape {
  std::size_t parameters = 0;     ///< P
  double flops_per_sample = 0.0;  ///< forward and backward FLOPs of one sample (2 per multiply-accumulate)
  /// The matrices --compress onebit quantizes per column, in the flat vector's order: per weighted layer its weights
  /// with a row per output unit (a column per input), then its bias vector (as train's gradient_columns lays them
  /// out).
  std::vector<compress::Matrix> onebit_matrices;
  /// Bytes of one full push or pull, 4 P.
  [[nodiscard]] double parameter_bytes() const { return 4.0 * static_cast<double>(parameters); }
};

/// Counts the parameters and FLOPs of `mlp:H1,H2,...` or `cnn` in closed form, with the same layers and
/// the same FLOP rule as src/nn's NetworkPlan (perf cannot link nn; a unit test checks they agree).
/// Throws UserError for an unknown spec.
ModelShape model_shape(const std::string& spec, InputShape input);

}  // namespace psbench::perf
