#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>

#include "gradient_check.hpp"
#include "nn/convolution.hpp"
#include "nn/inner_product.hpp"
#include "nn/max_pool.hpp"
#include "nn/relu.hpp"

namespace psbench::nn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using testing::compare_gradient;
using testing::sample_indices;
using testing::uniform_values;

constexpr int kBatch = 3;
constexpr double kTolerance = 1e-3;

tag plain_tag(const memory::dims& dims) { return dims.size() == 4 ? tag::nchw : tag::nc; }

std::size_t element_count(const memory::dims& dims) {
  return static_cast<std::size_t>(std::accumulate(dims.begin(), dims.end(), memory::dim{1}, std::multiplies<>()));
}

/// One layer under test with its input, parameters and gradients in plain float vectors.
class LayerUnderTest {
 public:
  /// An input of dims in layout input_tag, filled with values, and room for parameter_count parameters.
  LayerUnderTest(const memory::dims& dims, tag input_tag, std::vector<float> input, std::size_t parameter_count)
      : input_(std::move(input)),
        parameters_(uniform_values(parameter_count, -0.5F, 0.5F, 7)),
        gradients_(parameter_count) {
    input_desc_ = memory::desc(dims, memory::data_type::f32, input_tag);
    src_ = memory(input_desc_, engine_);
    diff_src_ = memory(input_desc_, engine_);
  }

  const BuildContext& context() const { return context_; }
  LayerInput input() const { return {src_, diff_src_}; }
  ParameterSlot slot(std::size_t weights) {
    return {parameters_.data(), parameters_.data() + weights, gradients_.data(), gradients_.data() + weights};
  }
  void set_layer(std::unique_ptr<Layer> built) {
    layers_.push_back(std::move(built));
    scratchpad_ = share_scratchpad(engine_, layers_);
    output_weights_ = uniform_values(element_count(layer().dst().get_desc().dims()), -1.0F, 1.0F, 11);
  }
  std::vector<float>& input_values() { return input_; }
  std::vector<float>& parameters() { return parameters_; }

  /// sum(r * dst) for fixed random r: its gradient with respect to dst is r.
  double objective() {
    write_plain(input_, src_);
    layer().forward(stream_);
    stream_.wait();
    const std::vector<float> out = read_plain(layer().dst());
    double sum = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i) sum += static_cast<double>(output_weights_[i]) * out[i];
    return sum;
  }

  /// Runs forward, then backward with diff_dst = r; returns d(objective)/d(input) in plain layout.
  std::vector<float> backward() {
    (void)objective();
    write_plain(output_weights_, layer().diff_dst());
    layer().backward(stream_);
    stream_.wait();
    return read_plain(diff_src_);
  }

  const std::vector<float>& gradients() const { return gradients_; }
  const Layer& layer() const { return *layers_.front(); }

 private:
  std::vector<float> read_plain(const memory& from) {
    const memory::dims dims = from.get_desc().dims();
    std::vector<float> values(element_count(dims));
    memory plain({dims, memory::data_type::f32, plain_tag(dims)}, engine_, values.data());
    dnnl::reorder(from, plain).execute(stream_, const_cast<memory&>(from), plain);
    stream_.wait();
    return values;
  }

  void write_plain(std::vector<float>& values, const memory& to) {
    const memory::dims dims = to.get_desc().dims();
    memory plain({dims, memory::data_type::f32, plain_tag(dims)}, engine_, values.data());
    dnnl::reorder(plain, to).execute(stream_, plain, const_cast<memory&>(to));
    stream_.wait();
  }

  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  BuildContext context_ = make_build_context(engine_, Pass::kTraining);
  memory::desc input_desc_;
  memory src_;
  memory diff_src_;
  std::vector<float> input_;
  std::vector<float> parameters_;
  std::vector<float> gradients_;
  std::vector<float> output_weights_;
  std::vector<std::unique_ptr<Layer>> layers_;
  memory scratchpad_;
};

/// At most this many components of each tensor are checked (all of them in the smaller cases).
constexpr std::size_t kComponentsPerTensor = 400;

/// Checks d/d(input) and, when the layer has parameters, d/d(parameters) against central differences.
void expect_gradients_match(LayerUnderTest& test, float step) {
  const std::vector<float> diff_input = test.backward();
  const std::vector<float> diff_parameters = test.gradients();
  const auto objective = [&test] { return test.objective(); };
  const auto input = compare_gradient(test.input_values(), diff_input,
                                      sample_indices(0, diff_input.size(), kComponentsPerTensor, 1), step, objective);
  EXPECT_LT(input.relative_error, kTolerance) << "input gradient";
  EXPECT_GT(input.analytic_norm, 0.1) << "input gradient";
  if (diff_parameters.empty()) return;
  const auto parameters =
      compare_gradient(test.parameters(), diff_parameters,
                       sample_indices(0, diff_parameters.size(), kComponentsPerTensor, 2), step, objective);
  EXPECT_LT(parameters.relative_error, kTolerance) << "parameter gradient";
  EXPECT_GT(parameters.analytic_norm, 0.1) << "parameter gradient";
}

struct ConvolutionCase {
  int in_channels;
  int out_channels;
  int kernel;
  int padding;
  tag input_tag;
};

class ConvolutionGradient : public ::testing::TestWithParam<ConvolutionCase> {};

TEST_P(ConvolutionGradient, MatchesFiniteDifferences) {
  const ConvolutionCase c = GetParam();
  const memory::dims dims{kBatch, c.in_channels, 6, 6};
  const std::size_t weights =
      static_cast<std::size_t>(c.out_channels) * static_cast<std::size_t>(c.in_channels * c.kernel * c.kernel);
  LayerUnderTest test(dims, c.input_tag, uniform_values(element_count(dims), -1.0F, 1.0F, 3),
                      weights + static_cast<std::size_t>(c.out_channels));
  test.set_layer(std::make_unique<Convolution>(test.context(), test.input(), test.slot(weights), c.out_channels,
                                               c.kernel, c.padding));
  expect_gradients_match(test, 1e-2F);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvolutionGradient,
                         ::testing::Values(ConvolutionCase{2, 4, 3, 1, tag::nchw},
                                           ConvolutionCase{2, 32, 5, 2, tag::nchw},
                                           ConvolutionCase{16, 32, 3, 0, tag::nChw16c}),
                         [](const ::testing::TestParamInfo<ConvolutionCase>& info) {
                           const ConvolutionCase& c = info.param;
                           return "In" + std::to_string(c.in_channels) + "Out" + std::to_string(c.out_channels) +
                                  "Kernel" + std::to_string(c.kernel) + "Pad" + std::to_string(c.padding) +
                                  (c.input_tag == tag::nchw ? "Plain" : "Blocked");
                         });

TEST(InnerProductGradient, OverAnImageMatchesFiniteDifferences) {
  const memory::dims dims{kBatch, 2, 3, 3};
  constexpr int kOutputs = 5;
  const std::size_t weights = 18U * kOutputs;
  LayerUnderTest test(dims, tag::nchw, uniform_values(element_count(dims), -1.0F, 1.0F, 3), weights + kOutputs);
  test.set_layer(std::make_unique<InnerProduct>(test.context(), test.input(), test.slot(weights), kOutputs));
  expect_gradients_match(test, 1e-2F);
}

TEST(InnerProductGradient, OverBlockedMapsMatchesFiniteDifferences) {
  const memory::dims dims{kBatch, 16, 2, 2};
  constexpr int kOutputs = 4;
  const std::size_t weights = 64U * kOutputs;
  LayerUnderTest test(dims, tag::nChw16c, uniform_values(element_count(dims), -1.0F, 1.0F, 3), weights + kOutputs);
  test.set_layer(std::make_unique<InnerProduct>(test.context(), test.input(), test.slot(weights), kOutputs));
  expect_gradients_match(test, 1e-2F);
}

TEST(InnerProductGradient, OverVectorsMatchesFiniteDifferences) {
  const memory::dims dims{kBatch, 7};
  constexpr int kOutputs = 4;
  const std::size_t weights = 7U * kOutputs;
  LayerUnderTest test(dims, tag::nc, uniform_values(element_count(dims), -1.0F, 1.0F, 3), weights + kOutputs);
  test.set_layer(std::make_unique<InnerProduct>(test.context(), test.input(), test.slot(weights), kOutputs));
  expect_gradients_match(test, 1e-2F);
}

/// Values at least 0.1 away from zero with random signs, so a +-1e-2 step never crosses ReLU's kink.
std::vector<float> values_away_from_zero(std::size_t count) {
  std::vector<float> values = uniform_values(count, 0.1F, 1.0F, 5);
  const std::vector<float> signs = uniform_values(count, -1.0F, 1.0F, 6);
  for (std::size_t i = 0; i < count; ++i) values[i] = signs[i] < 0.0F ? -values[i] : values[i];
  return values;
}

TEST(ReluGradient, MatchesFiniteDifferencesOnPlainAndBlockedData) {
  for (const auto& [dims, layout] :
       {std::pair{memory::dims{kBatch, 2, 4, 4}, tag::nchw}, std::pair{memory::dims{kBatch, 16, 3, 3}, tag::nChw16c},
        std::pair{memory::dims{kBatch, 9}, tag::nc}}) {
    LayerUnderTest test(dims, layout, values_away_from_zero(element_count(dims)), 0);
    test.set_layer(std::make_unique<Relu>(test.context(), test.input()));
    expect_gradients_match(test, 1e-2F);
  }
}

/// A shuffled ladder of values 0.05 apart, so no +-1e-2 step changes which element of a window is largest.
std::vector<float> distinct_values(std::size_t count) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = 0.05F * static_cast<float>(i) - 1.0F;
  std::mt19937 generator(9);
  std::shuffle(values.begin(), values.end(), generator);
  return values;
}

TEST(MaxPoolGradient, MatchesFiniteDifferencesIncludingARaggedEdge) {
  for (const auto& [dims, layout] :
       {std::pair{memory::dims{kBatch, 2, 6, 6}, tag::nchw}, std::pair{memory::dims{kBatch, 2, 7, 5}, tag::nchw},
        std::pair{memory::dims{kBatch, 16, 4, 4}, tag::nChw16c}}) {
    LayerUnderTest test(dims, layout, distinct_values(element_count(dims)), 0);
    test.set_layer(std::make_unique<MaxPool>(test.context(), test.input(), 2));
    const memory::dims out = test.layer().dst().get_desc().dims();
    EXPECT_EQ(out, (memory::dims{dims[0], dims[1], dims[2] / 2, dims[3] / 2}));
    expect_gradients_match(test, 1e-2F);
  }
}

}  // namespace
}  // namespace psbench::nn
