#include "nn/onednn_info.hpp"

#include <oneapi/dnnl/dnnl.hpp>

namespace psbench::nn {

std::string onednn_version() {
  const dnnl_version_t* version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) + "." + std::to_string(version->patch);
}

std::string onednn_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "unknown";
  }
}

std::string fully_connected_implementation(int batch, int inputs, int outputs) {
  using tag = dnnl::memory::format_tag;
  constexpr auto kF32 = dnnl::memory::data_type::f32;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const dnnl::memory::desc source({batch, inputs}, kF32, tag::ab);
  const dnnl::memory::desc weights({inputs, outputs}, kF32, tag::ba);  // the flat oi rows, as the model reads them
  const dnnl::memory::desc bias({1, outputs}, kF32, tag::ab);
  const dnnl::memory::desc destination({batch, outputs}, kF32, tag::ab);
  dnnl::primitive_attr attributes;
  attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::desc desc(source, weights, bias, destination);
  return dnnl::matmul::primitive_desc(desc, attributes, engine).impl_info_str();
}

}  // namespace psbench::nn
