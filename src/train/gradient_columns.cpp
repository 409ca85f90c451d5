#include "train/gradient_columns.hpp"

#include <vector>

#include "common/check.hpp"

namespace psbench::train {

compress::ColumnLayout gradient_columns(const nn::NetworkPlan& plan) {
  std::vector<compress::Matrix> matrices;
  std::size_t next = 0;
  for (const nn::LayerPlan& layer : plan.layers) {
    if (layer.weights_count == 0) continue;
    const auto units = static_cast<std::size_t>(layer.out.channels);
    PSBENCH_CHECK(layer.weights_offset == next && layer.weights_count % units == 0 &&
                  layer.bias_offset == next + layer.weights_count && layer.bias_count == units)
        << "a layer's parameters are not oi / oihw weights followed by one bias per output unit";
    matrices.push_back({units, layer.weights_count / units});
    matrices.push_back({layer.bias_count, 1});
    next = layer.bias_offset + layer.bias_count;
  }
  PSBENCH_CHECK(next == plan.parameter_count) << "columns over " << next << " of " << plan.parameter_count << " values";
  return compress::ColumnLayout(matrices);
}

}  // namespace psbench::train
