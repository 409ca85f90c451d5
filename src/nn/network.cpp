#include "nn/network.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "nn/convolution.hpp"
#include "nn/inner_product.hpp"
#include "nn/max_pool.hpp"
#include "nn/relu.hpp"

namespace psbench::nn {
namespace {

std::unique_ptr<Layer> build_layer(const BuildContext& context, const LayerPlan& plan, const LayerInput& input,
                                   std::span<float> parameters, std::span<float> gradients) {
  ParameterSlot slot;
  if (plan.weights_count > 0) {
    slot.weights = parameters.data() + plan.weights_offset;
    slot.bias = parameters.data() + plan.bias_offset;
    if (context.pass == Pass::kTraining) {
      slot.diff_weights = gradients.data() + plan.weights_offset;
      slot.diff_bias = gradients.data() + plan.bias_offset;
    }
  }
  switch (plan.kind) {
    case LayerKind::kConvolution:
      return std::make_unique<Convolution>(context, input, slot, plan.out.channels, plan.kernel, plan.padding);
    case LayerKind::kInnerProduct: return std::make_unique<InnerProduct>(context, input, slot, plan.out.channels);
    case LayerKind::kRelu: return std::make_unique<Relu>(context, input);
    case LayerKind::kMaxPool: return std::make_unique<MaxPool>(context, input, plan.kernel);
  }
  PSBENCH_CHECK(false) << "unknown layer kind";
  return nullptr;
}

}  // namespace

Network::Network(const dnnl::engine& engine, const NetworkPlan& plan, int batch, std::span<float> parameters,
                 std::span<float> gradients, Pass pass, std::size_t input_row_values)
    : batch_(batch) {
  PSBENCH_CHECK(parameters.size() == plan.parameter_count);
  PSBENCH_CHECK(pass == Pass::kInference || gradients.size() == plan.parameter_count);
  // The images arrive as plain NCHW; an MLP reads them as a batch x features matrix (the same bytes).
  const ActivationShape& in = plan.layers.front().in;
  const bool matrix_input = plan.layers.front().kind == LayerKind::kInnerProduct;
  PSBENCH_CHECK(input_row_values == in.values() || (matrix_input && input_row_values > in.values()))
      << "input rows of " << input_row_values << " values for samples of " << in.values();
  const dnnl::memory::desc input_desc =
      matrix_input
          ? dnnl::memory::desc({batch, static_cast<dnnl::memory::dim>(in.values())}, dnnl::memory::data_type::f32,
                               dnnl::memory::dims{static_cast<dnnl::memory::dim>(input_row_values), 1})
          : dnnl::memory::desc({batch, in.channels, in.height, in.width}, dnnl::memory::data_type::f32,
                               dnnl::memory::format_tag::nchw);
  input_ = dnnl::memory(input_desc, engine, nullptr);
  const BuildContext context = make_build_context(engine, pass);
  LayerInput input{input_, {}};
  for (const LayerPlan& layer_plan : plan.layers) {
    layers_.push_back(build_layer(context, layer_plan, input, parameters, gradients));
    input = {layers_.back()->dst(), layers_.back()->diff_dst()};
  }
  // The backward pass runs the layers last first; each one's weights and bias make the final range grow down.
  final_from_.resize(plan.layers.size());
  std::size_t final_from = plan.parameter_count;
  for (std::size_t i = plan.layers.size(); i-- > 0;) {
    const LayerPlan& layer_plan = plan.layers[i];
    if (layer_plan.weights_count > 0) {
      final_from = std::min({final_from, layer_plan.weights_offset, layer_plan.bias_offset});
    }
    final_from_[i] = final_from;
  }
  scratchpad_ = share_scratchpad(engine, layers_);
  const dnnl::memory::desc logits_desc({batch, plan.layers.back().out.channels}, dnnl::memory::data_type::f32,
                                       dnnl::memory::format_tag::nc);
  PSBENCH_CHECK(layers_.back()->dst().get_desc() == logits_desc) << "the output layer must produce plain nc logits";
}

void Network::set_input(const float* images) {
  // oneDNN takes a non-const handle; the forward pass only reads the input.
  input_.set_data_handle(const_cast<float*>(images));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

void Network::forward(dnnl::stream& stream) const {
  for (const auto& layer : layers_) layer->forward(stream);
  stream.wait();
}

void Network::backward(dnnl::stream& stream, GradientListener* listener) const {
  for (std::size_t i = layers_.size(); i-- > 0;) {
    layers_[i]->backward(stream);
    if (listener == nullptr) continue;
    stream.wait();  // the layer's gradients are written before anyone reads them
    listener->gradients_ready(final_from_[i]);
  }
  stream.wait();
}

const float* Network::logits() const { return static_cast<const float*>(layers_.back()->dst().get_data_handle()); }

float* Network::diff_logits() const { return static_cast<float*>(layers_.back()->diff_dst().get_data_handle()); }

std::size_t input_row_values(const NetworkPlan& plan) {
  constexpr std::size_t kPageBytes = 4096;
  constexpr std::size_t kLineValues = 64 / sizeof(float);
  const std::size_t values = plan.layers.front().in.values();
  const bool matrix_input = plan.layers.front().kind == LayerKind::kInnerProduct;
  return matrix_input && (values * sizeof(float)) % kPageBytes == 0 ? values + kLineValues : values;
}

}  // namespace psbench::nn
