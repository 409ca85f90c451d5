#pragma once

#include "compress/column_layout.hpp"
#include "nn/network_plan.hpp"

namespace psbench::train {

/// The columns 1-bit SGD quantizes, over the model's flat parameter vector, as CNTK forms them: for each layer with
/// weights, its oi / oihw weights as a matrix of a row per output unit, quantized per matrix column (one column per
/// input of an inner product, per input channel x kernel position of a convolution: that input's fan-out over the
/// output units, CNTK's column-major [out x in] matrix), then the layer's bias vector as one column (as CNTK
/// quantizes a vector: a matrix of one column).
compress::ColumnLayout gradient_columns(const nn::NetworkPlan& plan);

}  // namespace psbench::train
