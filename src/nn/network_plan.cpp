#include "nn/network_plan.hpp"

#include <charconv>
#include <string_view>

#include "common/error.hpp"

namespace psbench::nn {
namespace {

constexpr std::string_view kMlpPrefix = "mlp:";
constexpr int kMaxWidth = 1 << 20;
constexpr int kCnnKernel = 5;
constexpr int kCnnPadding = 2;
constexpr int kCnnPool = 2;
constexpr int kCnnChannels1 = 32;
constexpr int kCnnChannels2 = 64;
constexpr int kCnnHidden = 1024;

[[noreturn]] void throw_bad_spec(const std::string& spec, const std::string& problem) {
  throw UserError("model spec '" + spec + "' " + problem + ": use " + kAcceptedSpecs);
}

std::vector<int> parse_mlp_widths(const std::string& spec) {
  std::vector<int> widths;
  std::string_view rest = std::string_view(spec).substr(kMlpPrefix.size());
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int width = 0;
    const auto [end, status] = std::from_chars(item.data(), item.data() + item.size(), width);
    if (item.empty() || status != std::errc() || end != item.data() + item.size() || width <= 0 || width > kMaxWidth) {
      throw_bad_spec(spec, "has a hidden width '" + std::string(item) + "' that is not an integer in [1, " +
                               std::to_string(kMaxWidth) + "]");
    }
    widths.push_back(width);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return widths;
}

/// Appends layers while tracking the running shape and parameter offsets.
class PlanBuilder {
 public:
  explicit PlanBuilder(ActivationShape input) : shape_(input) {}

  void convolution(int out_channels, int kernel, int padding) {
    LayerPlan layer = start(LayerKind::kConvolution);
    layer.kernel = kernel;
    layer.padding = padding;
    layer.out = {out_channels, shape_.height + 2 * padding - kernel + 1, shape_.width + 2 * padding - kernel + 1};
    add_parameters(layer,
                   static_cast<std::size_t>(out_channels) * static_cast<std::size_t>(shape_.channels) *
                       static_cast<std::size_t>(kernel) * static_cast<std::size_t>(kernel),
                   static_cast<std::size_t>(out_channels));
    finish(layer);
  }

  void inner_product(int outputs) {
    LayerPlan layer = start(LayerKind::kInnerProduct);
    layer.out = {outputs, 1, 1};
    add_parameters(layer, shape_.values() * static_cast<std::size_t>(outputs), static_cast<std::size_t>(outputs));
    finish(layer);
  }

  void relu() {
    LayerPlan layer = start(LayerKind::kRelu);
    layer.out = shape_;
    finish(layer);
  }

  void max_pool(int window) {
    LayerPlan layer = start(LayerKind::kMaxPool);
    layer.kernel = window;
    layer.out = {shape_.channels, shape_.height / window, shape_.width / window};
    finish(layer);
  }

  NetworkPlan build() && {
    NetworkPlan plan;
    plan.parameter_count = next_offset_;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      if (layers_[i].weights_count == 0) continue;
      const bool feeds_relu = i + 1 < layers_.size() && layers_[i + 1].kind == LayerKind::kRelu;
      layers_[i].init = feeds_relu ? InitKind::kHe : InitKind::kGlorot;
    }
    plan.layers = std::move(layers_);
    return plan;
  }

 private:
  LayerPlan start(LayerKind kind) const {
    LayerPlan layer;
    layer.kind = kind;
    layer.in = shape_;
    return layer;
  }

  void add_parameters(LayerPlan& layer, std::size_t weights, std::size_t biases) {
    layer.weights_offset = next_offset_;
    layer.weights_count = weights;
    layer.bias_offset = next_offset_ + weights;
    layer.bias_count = biases;
    next_offset_ += weights + biases;
  }

  void finish(const LayerPlan& layer) {
    shape_ = layer.out;
    layers_.push_back(layer);
  }

  ActivationShape shape_;
  std::size_t next_offset_ = 0;
  std::vector<LayerPlan> layers_;
};

}  // namespace

std::size_t ActivationShape::values() const {
  return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
}

double LayerPlan::macs_per_sample() const {
  switch (kind) {
    case LayerKind::kInnerProduct: return static_cast<double>(weights_count);
    case LayerKind::kConvolution:
      return static_cast<double>(weights_count) * static_cast<double>(out.height) * static_cast<double>(out.width);
    case LayerKind::kRelu:
    case LayerKind::kMaxPool: return 0.0;
  }
  return 0.0;
}

double NetworkPlan::flops_per_step(int batch) const {
  double flops = 0.0;
  bool first = true;
  for (const LayerPlan& layer : layers) {
    const double macs = layer.macs_per_sample();
    if (macs == 0.0) continue;
    const double passes = first ? 2.0 : 3.0;  // forward, weights gradient, and (not for the first) data gradient
    flops += 2.0 * macs * passes * static_cast<double>(batch);
    first = false;
  }
  return flops;
}

NetworkPlan plan_network(const std::string& spec, InputShape input, int num_classes) {
  if (input.channels <= 0 || input.height <= 0 || input.width <= 0) {
    throw UserError("input shape " + std::to_string(input.channels) + "x" + std::to_string(input.height) + "x" +
                    std::to_string(input.width) + " is not a positive CxHxW");
  }
  if (num_classes < 2) {
    throw UserError("class count " + std::to_string(num_classes) + " is too small: a classifier needs at least 2");
  }
  PlanBuilder builder({input.channels, input.height, input.width});
  if (spec == "cnn") {
    constexpr int kMinSide = kCnnPool * kCnnPool;
    if (input.height < kMinSide || input.width < kMinSide) {
      throw UserError("model spec 'cnn' needs inputs of at least " + std::to_string(kMinSide) + "x" +
                      std::to_string(kMinSide) + " pixels (two 2x2 poolings), got " + std::to_string(input.height) +
                      "x" + std::to_string(input.width));
    }
    for (const int channels : {kCnnChannels1, kCnnChannels2}) {
      builder.convolution(channels, kCnnKernel, kCnnPadding);
      builder.relu();
      builder.max_pool(kCnnPool);
    }
    builder.inner_product(kCnnHidden);
    builder.relu();
  } else if (spec.starts_with(kMlpPrefix)) {
    for (const int width : parse_mlp_widths(spec)) {
      builder.inner_product(width);
      builder.relu();
    }
  } else {
    throw_bad_spec(spec, "is not recognised");
  }
  builder.inner_product(num_classes);
  return std::move(builder).build();
}

std::size_t parameter_count_for(const std::string& spec, InputShape input, int num_classes) {
  return plan_network(spec, input, num_classes).parameter_count;
}

}  // namespace psbench::nn
