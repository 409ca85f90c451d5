#include "train/gradient_columns.hpp"

#include <vector>

#include "common/check.hpp"

namespace psbench::train {

compress::ColumnLayout gradient_columns(const nn::NetworkPlan& plan) {
  std::vector<std::size_t> sizes;
  std::size_t next = 0;
  for (const nn::LayerPlan& layer : plan.layers) {
    if (layer.weights_count == 0) continue;
    const auto units = static_cast<std::size_t>(layer.out.channels);
    PSBENCH_CHECK(layer.weights_offset == next && layer.weights_count % units == 0 &&
                  layer.bias_offset == next + layer.weights_count && layer.bias_count == units)
        << "a layer's parameters are not oi / oihw weights followed by one bias per output unit";
    sizes.insert(sizes.end(), units, layer.weights_count / units);
    sizes.push_back(layer.bias_count);
    next = layer.bias_offset + layer.bias_count;
  }
  PSBENCH_CHECK(next == plan.parameter_count) << "columns over " << next << " of " << plan.parameter_count << " values";
  return compress::ColumnLayout(sizes);
}

}  // namespace psbench::train
