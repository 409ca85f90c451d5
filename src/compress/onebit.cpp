#include "compress/onebit.hpp"

#include <array>
#include <bit>

#include "common/check.hpp"
#include "compress/onebit_kernel_set.hpp"
#include "compress/onebit_kernels.hpp"

namespace psbench::compress {

const KernelSet kBaselineKernels{"baseline", kernels::OneBit<4>::quantize, kernels::OneBit<4>::unpack<false>,
                                 kernels::OneBit<4>::unpack<true>};

namespace {

#if defined(PSBENCH_ONEBIT_X86_64_LEVELS)
// The CPU features a level's code may use, by names that GCC and Clang both know (Clang 14 lacks "x86-64-v3").
bool runs_x86_64_v3() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2");
}

bool runs_x86_64_v4() {
  return runs_x86_64_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}
#endif

struct Runnable {
  std::array<const KernelSet*, 3> sets{};
  std::size_t count = 0;
};

Runnable find_runnable() {
  Runnable runnable;
  runnable.sets[runnable.count++] = &kBaselineKernels;
#if defined(PSBENCH_ONEBIT_X86_64_LEVELS)
  if (runs_x86_64_v3()) runnable.sets[runnable.count++] = &kX86_64_V3Kernels;
  if (runs_x86_64_v4()) runnable.sets[runnable.count++] = &kX86_64_V4Kernels;
#endif
  return runnable;
}

}  // namespace

std::span<const KernelSet* const> runnable_onebit_kernels() {
  static const Runnable runnable = find_runnable();
  return {runnable.sets.data(), runnable.count};
}

// At SSE's width the kernels are bound by instructions, not memory (docs/architecture.md, "1-bit SGD"): where the
// machine has wider vectors, they use them.
const KernelSet& onebit_kernels() {
  static const KernelSet& widest = *runnable_onebit_kernels().back();
  return widest;
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
