#pragma once

#include "data/loader.hpp"
#include "nn/model.hpp"
#include "train/run_summary.hpp"

namespace psbench::train {

/// Evaluates model's current parameters on a test split, normalising it 128 samples at a time from its
/// stored type as training does; throws UserError if its shape differs from the model's input.
Evaluation evaluate_on(nn::Model& model, const data::Samples& test, const nn::InputShape& input);

}  // namespace psbench::train
