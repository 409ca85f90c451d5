#include "compress/onebit.hpp"

#include <bit>

#include "common/check.hpp"
#include "compress/onebit_kernel_set.hpp"
#include "compress/onebit_kernels.hpp"

namespace psbench::compress {

const KernelSet kBaselineKernels{"baseline", kernels::OneBit<4>::quantize, kernels::OneBit<4>::unpack<false>,
                                 kernels::OneBit<4>::unpack<true>};

// At SSE's width the kernels are bound by instructions, not memory (docs/architecture.md, "1-bit SGD"): where the
// machine has wider vectors, they use them.
const KernelSet& onebit_kernels() {
#if defined(PSBENCH_ONEBIT_X86_64_LEVELS)
  static const KernelSet& chosen = __builtin_cpu_supports("x86-64-v4")   ? kX86_64_V4Kernels
                                   : __builtin_cpu_supports("x86-64-v3") ? kX86_64_V3Kernels
                                                                         : kBaselineKernels;
  return chosen;
#else
  return kBaselineKernels;
#endif
}

namespace {

void check_packed(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::size_t values) {
  PSBENCH_CHECK(packed.size() == layout.words() && values == layout.values())
      << packed.size() << " words and " << values << " values for a layout of " << layout.words() << " and "
      << layout.values();
}

const Column* columns_of(const ColumnLayout& layout) { return layout.columns() > 0 ? &layout.column(0) : nullptr; }

}  // namespace

void quantize_onebit(const ColumnLayout& layout, std::span<const float> values, std::span<float> residual,
                     std::span<std::uint32_t> packed) {
  PSBENCH_CHECK(values.size() == layout.values() && (residual.empty() || residual.size() == layout.values()) &&
                packed.size() == layout.words())
      << values.size() << " values, " << residual.size() << " residuals and " << packed.size()
      << " words for a layout of " << layout.values() << " values and " << layout.words() << " words";
  onebit_kernels().quantize(columns_of(layout), layout.columns(), values.data(),
                            residual.empty() ? nullptr : residual.data(), packed.data());
}

void dequantize_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out) {
  check_packed(layout, packed, out.size());
  onebit_kernels().unpack(columns_of(layout), layout.columns(), packed.data(), out.data());
}

void dequantize_add_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out) {
  check_packed(layout, packed, out.size());
  onebit_kernels().unpack_add(columns_of(layout), layout.columns(), packed.data(), out.data());
}

Reconstruction reconstruction_of(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::size_t i) {
  const std::uint32_t* words = packed.data() + layout.column(i).word;
  return {std::bit_cast<float>(words[0]), std::bit_cast<float>(words[1])};
}

}  // namespace psbench::compress
