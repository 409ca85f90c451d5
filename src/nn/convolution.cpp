#include "nn/convolution.hpp"

namespace psbench::nn {

Convolution::Convolution(const BuildContext& context, const LayerInput& input, const ParameterSlot& parameters,
                         int out_channels, int kernel, int padding) {
  using dnnl::memory;
  using tag = memory::format_tag;
  constexpr auto kF32 = memory::data_type::f32;
  constexpr auto kDirect = dnnl::algorithm::convolution_direct;
  const dnnl::engine& engine = context.engine;
  const memory::dims in = input.src.get_desc().dims();
  const memory::dims dst_dims{in[0], out_channels, in[2] + 2 * padding - kernel + 1, in[3] + 2 * padding - kernel + 1};
  const memory::dims weights_dims{out_channels, in[1], kernel, kernel};
  const memory::dims strides{1, 1};
  const memory::dims pads{padding, padding};
  const memory::desc src_any(in, kF32, tag::any);
  const memory::desc weights_any(weights_dims, kF32, tag::any);
  const memory::desc dst_any(dst_dims, kF32, tag::any);
  const memory::desc weights_plain(weights_dims, kF32, tag::oihw);
  const memory::desc bias_plain({out_channels}, kF32, tag::x);
  const memory weights_flat(weights_plain, engine, parameters.weights);

  const dnnl::convolution_forward::desc forward_desc(context.forward_kind(), kDirect, src_any, weights_any, bias_plain,
                                                     dst_any, strides, pads, pads);
  const dnnl::convolution_forward::primitive_desc forward_pd(forward_desc, context.attr, engine);
  const memory src = stage_input(context, input.src, forward_pd.src_desc(), forward_);
  const memory weights = stage_input(context, weights_flat, forward_pd.weights_desc(), forward_);
  dst_ = memory(forward_pd.dst_desc(), engine);
  forward_.push_back({dnnl::convolution_forward(forward_pd),
                      {{DNNL_ARG_SRC, src},
                       {DNNL_ARG_WEIGHTS, weights},
                       {DNNL_ARG_BIAS, memory(bias_plain, engine, parameters.bias)},
                       {DNNL_ARG_DST, dst_}}});
  if (context.pass == Pass::kInference) return;
  diff_dst_ = memory(forward_pd.dst_desc(), engine);

  // Weight and bias gradients, written into the flat gradient vector (through a reorder for blocked weights).
  const dnnl::convolution_backward_weights::desc weights_desc(kDirect, src_any, weights_any, bias_plain, dst_any,
                                                              strides, pads, pads);
  const dnnl::convolution_backward_weights::primitive_desc weights_pd(weights_desc, context.attr, engine, forward_pd);
  const memory weights_src = reuse_or_stage(context, src, input.src, weights_pd.src_desc(), backward_);
  const memory weights_diff_dst = stage_input(context, diff_dst_, weights_pd.diff_dst_desc(), backward_);
  const StagedOutput diff_weights =
      stage_output(context, memory(weights_plain, engine, parameters.diff_weights), weights_pd.diff_weights_desc());
  const StagedOutput diff_bias =
      stage_output(context, memory(bias_plain, engine, parameters.diff_bias), weights_pd.diff_bias_desc());
  append_with_outputs(backward_,
                      {dnnl::convolution_backward_weights(weights_pd),
                       {{DNNL_ARG_SRC, weights_src},
                        {DNNL_ARG_DIFF_DST, weights_diff_dst},
                        {DNNL_ARG_DIFF_WEIGHTS, diff_weights.memory},
                        {DNNL_ARG_DIFF_BIAS, diff_bias.memory}}},
                      {&diff_weights, &diff_bias});
  if (!input.diff_src) return;

  // Input gradient, reusing the forward pass's copy of the weights when the layouts agree.
  const dnnl::convolution_backward_data::desc data_desc(kDirect, src_any, weights_any, dst_any, strides, pads, pads);
  const dnnl::convolution_backward_data::primitive_desc data_pd(data_desc, context.attr, engine, forward_pd);
  const memory data_diff_dst = reuse_or_stage(context, weights_diff_dst, diff_dst_, data_pd.diff_dst_desc(), backward_);
  const memory data_weights = reuse_or_stage(context, weights, weights_flat, data_pd.weights_desc(), backward_);
  const StagedOutput diff_src = stage_output(context, input.diff_src, data_pd.diff_src_desc());
  append_with_outputs(
      backward_,
      {dnnl::convolution_backward_data(data_pd),
       {{DNNL_ARG_DIFF_DST, data_diff_dst}, {DNNL_ARG_WEIGHTS, data_weights}, {DNNL_ARG_DIFF_SRC, diff_src.memory}}},
      {&diff_src});
}

}  // namespace psbench::nn
