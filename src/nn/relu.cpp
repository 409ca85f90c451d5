#include "nn/relu.hpp"

namespace psbench::nn {

Relu::Relu(const BuildContext& context, const LayerInput& input) {
  constexpr auto kRelu = dnnl::algorithm::eltwise_relu;
  const dnnl::memory::desc data = input.src.get_desc();
  const dnnl::eltwise_forward::primitive_desc forward_pd({context.forward_kind(), kRelu, data, 0.0F}, context.attr,
                                                         context.engine);
  dst_ = dnnl::memory(forward_pd.dst_desc(), context.engine);
  forward_.push_back({dnnl::eltwise_forward(forward_pd), {{DNNL_ARG_SRC, input.src}, {DNNL_ARG_DST, dst_}}});
  if (context.pass == Pass::kInference) return;

  diff_dst_ = dnnl::memory(forward_pd.dst_desc(), context.engine);
  if (!input.diff_src) return;
  const dnnl::eltwise_backward::primitive_desc backward_pd({kRelu, input.diff_src.get_desc(), data, 0.0F}, context.attr,
                                                           context.engine, forward_pd);
  backward_.push_back(
      {dnnl::eltwise_backward(backward_pd),
       {{DNNL_ARG_SRC, input.src}, {DNNL_ARG_DIFF_DST, diff_dst_}, {DNNL_ARG_DIFF_SRC, input.diff_src}}});
}

}  // namespace psbench::nn
