#pragma once

#include "compress/column_layout.hpp"
#include "nn/network_plan.hpp"

namespace psbench::train {

/// The columns 1-bit SGD quantizes, over the model's flat parameter vector: for each layer with weights, one column
/// per output unit (its contiguous run of oi / oihw weights: an inner product's inputs, a convolution's input channels
/// x kernel), then the layer's bias vector as one column (as CNTK quantizes a vector: a matrix of one column).
compress::ColumnLayout gradient_columns(const nn::NetworkPlan& plan);

}  // namespace psbench::train
