#include "nn/inner_product.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::nn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

/// The same buffer under another descriptor (a plain image batch read as a batch x features matrix).
memory view_as(const memory& plain, const memory::desc& desc) {
  return {desc, plain.get_engine(), plain.get_data_handle()};
}

dnnl::matmul make_matmul(const BuildContext& context, const dnnl::matmul::desc& desc) {
  return dnnl::matmul(dnnl::matmul::primitive_desc(desc, context.attr, context.engine));
}

}  // namespace

InnerProduct::InnerProduct(const BuildContext& context, const LayerInput& input, const ParameterSlot& parameters,
                           int outputs) {
  const dnnl::engine& engine = context.engine;
  const memory::dims in = input.src.get_desc().dims();
  const bool image_input = in.size() == 4;
  const memory::dim batch = in[0];
  const memory::dim features = image_input ? in[1] * in[2] * in[3] : in[1];
  const memory::desc matrix({batch, features}, kF32, tag::ab);                          // src and diff_src
  const memory::desc image = image_input ? memory::desc(in, kF32, tag::nchw) : matrix;  // the same values
  const memory::desc weights_kn({features, outputs}, kF32, tag::ba);  // the flat oi rows, read as K x N
  const memory::desc weights_nk({outputs, features}, kF32, tag::ab);  // the flat oi rows as they lie
  const memory::desc bias_row({1, outputs}, kF32, tag::ab);
  const memory::desc output({batch, outputs}, kF32, tag::ab);  // dst and diff_dst (plain nc)

  memory src = input.src;
  if (image_input) {
    src = view_as(stage_input(context, input.src, image, forward_), matrix);
  } else {
    // Plain rows, or rows further apart than a sample (a network's padded input: input_row_values).
    const memory::desc given = input.src.get_desc();
    PSBENCH_CHECK(given.dims() == matrix.dims() && given.data.format_kind == dnnl_blocked &&
                  given.data.format_desc.blocking.inner_nblks == 0 && given.data.format_desc.blocking.strides[1] == 1 &&
                  given.data.format_desc.blocking.strides[0] >= features)
        << "a 2-D input to an inner product must be nc rows";
  }
  const memory::desc src_rows = src.get_desc();
  dst_ = memory(output, engine);
  forward_.push_back({make_matmul(context, {src_rows, weights_kn, bias_row, output}),
                      {{DNNL_ARG_SRC, src},
                       {DNNL_ARG_WEIGHTS, memory(weights_kn, engine, parameters.weights)},
                       {DNNL_ARG_BIAS, memory(bias_row, engine, parameters.bias)},
                       {DNNL_ARG_DST, dst_}}});
  if (context.pass == Pass::kInference) return;
  diff_dst_ = memory(output, engine);

  // d(weights) [outputs x features] = diff_dst^T [outputs x batch] * src [batch x features].
  const memory::desc diff_dst_transposed({outputs, batch}, kF32, tag::ba);
  backward_.push_back({make_matmul(context, {diff_dst_transposed, src_rows, weights_nk}),
                       {{DNNL_ARG_SRC, view_as(diff_dst_, diff_dst_transposed)},
                        {DNNL_ARG_WEIGHTS, src},
                        {DNNL_ARG_DST, memory(weights_nk, engine, parameters.diff_weights)}}});
  // d(bias) [1 x outputs] = ones [1 x batch] * diff_dst [batch x outputs] (Caffe's bias multiplier).
  const memory::desc ones_row({1, batch}, kF32, tag::ab);
  const memory ones(ones_row, engine);
  std::fill_n(static_cast<float*>(ones.get_data_handle()), batch, 1.0F);
  backward_.push_back({make_matmul(context, {ones_row, output, bias_row}),
                       {{DNNL_ARG_SRC, ones},
                        {DNNL_ARG_WEIGHTS, diff_dst_},
                        {DNNL_ARG_DST, memory(bias_row, engine, parameters.diff_bias)}}});
  if (!input.diff_src) return;

  // d(src) [batch x features] = diff_dst [batch x outputs] * weights [outputs x features].
  StagedOutput diff_src{input.diff_src, {}};
  if (image_input) {
    diff_src = stage_output(context, input.diff_src, image);
    diff_src.memory = view_as(diff_src.memory, matrix);
  } else {
    PSBENCH_CHECK(input.diff_src.get_desc() == matrix) << "a 2-D input gradient must be plain nc";
  }
  append_with_outputs(backward_,
                      {make_matmul(context, {output, weights_nk, matrix}),
                       {{DNNL_ARG_SRC, diff_dst_},
                        {DNNL_ARG_WEIGHTS, memory(weights_nk, engine, parameters.weights)},
                        {DNNL_ARG_DST, diff_src.memory}}},
                      {&diff_src});
}

}  // namespace psbench::nn
