#include "nn/layer.hpp"

#include <algorithm>

namespace psbench::nn {
namespace {

std::size_t scratchpad_bytes_of(const Step& step) {
  const_dnnl_primitive_desc_t pd = step.primitive.get_primitive_desc();
  const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md == nullptr ? 0 : dnnl_memory_desc_get_size(md);
}

dnnl::primitive reorder_between(const BuildContext& context, const dnnl::memory& from, const dnnl::memory& to) {
  return dnnl::reorder(dnnl::reorder::primitive_desc(from, to, context.attr));
}

}  // namespace

dnnl::prop_kind BuildContext::forward_kind() const {
  return pass == Pass::kTraining ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
}

BuildContext make_build_context(const dnnl::engine& engine, Pass pass) {
  BuildContext context{engine, {}, pass};
  context.attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return context;
}

void Layer::forward(dnnl::stream& stream) const {
  for (const Step& step : forward_) step.run(stream);
}

void Layer::backward(dnnl::stream& stream) const {
  for (const Step& step : backward_) step.run(stream);
}

std::size_t Layer::scratchpad_bytes() const {
  std::size_t bytes = 0;
  for (const auto* steps : {&forward_, &backward_}) {
    for (const Step& step : *steps) bytes = std::max(bytes, scratchpad_bytes_of(step));
  }
  return bytes;
}

void Layer::bind_scratchpad(const dnnl::memory& scratchpad) {
  for (auto* steps : {&forward_, &backward_}) {
    for (Step& step : *steps) {
      if (scratchpad_bytes_of(step) > 0) step.args.insert_or_assign(DNNL_ARG_SCRATCHPAD, scratchpad);
    }
  }
}

dnnl::memory share_scratchpad(const dnnl::engine& engine, const std::vector<std::unique_ptr<Layer>>& layers) {
  std::size_t bytes = 0;
  for (const auto& layer : layers) bytes = std::max(bytes, layer->scratchpad_bytes());
  if (bytes == 0) return {};
  const dnnl::memory scratchpad(
      {{static_cast<dnnl::memory::dim>(bytes)}, dnnl::memory::data_type::u8, dnnl::memory::format_tag::x}, engine);
  for (const auto& layer : layers) layer->bind_scratchpad(scratchpad);
  return scratchpad;
}

dnnl::memory stage_input(const BuildContext& context, const dnnl::memory& source, const dnnl::memory::desc& want,
                         std::vector<Step>& steps) {
  if (source.get_desc() == want) return source;
  dnnl::memory staged(want, context.engine);
  steps.push_back({reorder_between(context, source, staged), {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, staged}}});
  return staged;
}

dnnl::memory reuse_or_stage(const BuildContext& context, const dnnl::memory& candidate, const dnnl::memory& source,
                            const dnnl::memory::desc& want, std::vector<Step>& steps) {
  return candidate.get_desc() == want ? candidate : stage_input(context, source, want, steps);
}

StagedOutput stage_output(const BuildContext& context, const dnnl::memory& target, const dnnl::memory::desc& want) {
  if (target.get_desc() == want) return {target, {}};
  dnnl::memory staged(want, context.engine);
  StagedOutput output{staged, {}};
  output.after.push_back({reorder_between(context, staged, target), {{DNNL_ARG_FROM, staged}, {DNNL_ARG_TO, target}}});
  return output;
}

void append_with_outputs(std::vector<Step>& steps, Step step, std::initializer_list<const StagedOutput*> outputs) {
  steps.push_back(std::move(step));
  for (const StagedOutput* output : outputs) steps.insert(steps.end(), output->after.begin(), output->after.end());
}

}  // namespace psbench::nn
