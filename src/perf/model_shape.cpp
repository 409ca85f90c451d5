#include "perf/model_shape.hpp"

#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

constexpr std::string_view kMlpPrefix = "mlp:";
// nn's cnn: two 5x5 convolutions (padding 2) of 32 and 64 channels, each with a 2x2 max pool, then 1024.
constexpr int kCnnKernel = 5;
constexpr int kCnnPool = 2;
constexpr int kCnnChannels[] = {32, 64};
constexpr int kCnnHidden = 1024;

[[noreturn]] void bad_spec(const std::string& spec) {
  throw UserError("model spec '" + spec + "' is not recognised: use 'mlp:H1,H2,...' (e.g. mlp:512,256) or 'cnn'");
}

std::vector<int> mlp_widths(const std::string& spec) {
  std::vector<int> widths;
  std::string_view rest = std::string_view(spec).substr(kMlpPrefix.size());
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int width = 0;
    const auto [end, status] = std::from_chars(item.data(), item.data() + item.size(), width);
    if (item.empty() || status != std::errc() || end != item.data() + item.size() || width <= 0) bad_spec(spec);
    widths.push_back(width);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return widths;
}

// Accumulates layers: MACs per sample of each weighted layer, in order, the parameters and the 1-bit matrices (the
// weights with a row per output unit, i.e. per bias, then the bias vector).
struct Tally {
  std::vector<double> macs;
  std::size_t parameters = 0;
  std::vector<compress::Matrix> matrices;
  void layer(double weights, double biases, double positions) {
    macs.push_back(weights * positions);
    parameters += static_cast<std::size_t>(weights + biases);
    const auto units = static_cast<std::size_t>(biases);
    matrices.push_back({units, static_cast<std::size_t>(weights) / units});
    matrices.push_back({units, 1});
  }
};

void add_cnn_layers(InputShape input, Tally& tally, double& features) {
  int channels = input.channels;
  int height = input.height;
  int width = input.width;
  for (const int out : kCnnChannels) {
    const double weights = static_cast<double>(out) * channels * kCnnKernel * kCnnKernel;
    tally.layer(weights, out, static_cast<double>(height) * width);  // padding 2 keeps H x W
    channels = out;
    height /= kCnnPool;
    width /= kCnnPool;
  }
  features = static_cast<double>(channels) * height * width;
  tally.layer(features * kCnnHidden, kCnnHidden, 1.0);
  features = kCnnHidden;
}

}  // namespace

ModelShape model_shape(const std::string& spec, InputShape input) {
  Tally tally;
  double features = static_cast<double>(input.channels) * input.height * input.width;
  if (spec == "cnn") {
    add_cnn_layers(input, tally, features);
  } else if (spec.starts_with(kMlpPrefix)) {
    for (const int width : mlp_widths(spec)) {
      tally.layer(features * width, width, 1.0);
      features = width;
    }
  } else {
    bad_spec(spec);
  }
  tally.layer(features * input.classes, input.classes, 1.0);
  ModelShape shape;
  shape.parameters = tally.parameters;
  shape.onebit_matrices = std::move(tally.matrices);
  for (std::size_t i = 0; i < tally.macs.size(); ++i) {
    const double passes = i == 0 ? 2.0 : 3.0;  // forward, weight gradient, and (not the first) data gradient
    shape.flops_per_sample += 2.0 * tally.macs[i] * passes;
  }
  return shape;
}

}  // namespace psbench::perf
