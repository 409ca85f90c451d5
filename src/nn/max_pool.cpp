#include "nn/max_pool.hpp"

namespace psbench::nn {

MaxPool::MaxPool(const BuildContext& context, const LayerInput& input, int window) {
  using dnnl::memory;
  constexpr auto kMax = dnnl::algorithm::pooling_max;
  const memory::desc src = input.src.get_desc();
  const memory::dims in = src.dims();
  const memory::desc dst_any({in[0], in[1], in[2] / window, in[3] / window}, memory::data_type::f32,
                             memory::format_tag::any);
  const memory::dims strides{window, window};
  const memory::dims kernel{window, window};
  const memory::dims padding{0, 0};
  const dnnl::pooling_forward::primitive_desc forward_pd(
      {context.forward_kind(), kMax, src, dst_any, strides, kernel, padding, padding}, context.attr, context.engine);
  dst_ = memory(forward_pd.dst_desc(), context.engine);
  Step forward{dnnl::pooling_forward(forward_pd), {{DNNL_ARG_SRC, input.src}, {DNNL_ARG_DST, dst_}}};
  if (context.pass == Pass::kInference) {
    forward_.push_back(std::move(forward));
    return;
  }
  const memory workspace(forward_pd.workspace_desc(), context.engine);
  forward.args.emplace(DNNL_ARG_WORKSPACE, workspace);
  forward_.push_back(std::move(forward));

  diff_dst_ = memory(forward_pd.dst_desc(), context.engine);
  if (!input.diff_src) return;
  const dnnl::pooling_backward::primitive_desc backward_pd(
      {kMax, input.diff_src.get_desc(), forward_pd.dst_desc(), strides, kernel, padding, padding}, context.attr,
      context.engine, forward_pd);
  backward_.push_back(
      {dnnl::pooling_backward(backward_pd),
       {{DNNL_ARG_DIFF_DST, diff_dst_}, {DNNL_ARG_DIFF_SRC, input.diff_src}, {DNNL_ARG_WORKSPACE, workspace}}});
}

}  // namespace psbench::nn
