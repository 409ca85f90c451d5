#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "compress/column_layout.hpp"

namespace psbench::compress {

/// The 1-bit kernels compiled for one instruction set, over count columns given as an array (quantize_onebit's and
/// the dequantizers' contracts; a null residual quantizes without error feedback). Every set gives the same results
/// bit for bit.
struct KernelSet {
  const char* name;  ///< the instruction set: "baseline", "x86-64-v3" (AVX2) or "x86-64-v4" (AVX-512)
  void (*quantize)(const Column* columns, std::size_t count, const float* values, float* residual,
                   std::uint32_t* packed);  ///< quantize_onebit
  void (*unpack)(const Column* columns, std::size_t count, const std::uint32_t* packed,
                 float* out);  ///< dequantize_onebit
  void (*unpack_add)(const Column* columns, std::size_t count, const std::uint32_t* packed,
                     float* out);  ///< dequantize_add_onebit
};

/// The kernels at SSE's width, the x86-64 baseline (any other machine: its compiler's 16-byte vectors).
extern const KernelSet kBaselineKernels;
#if defined(PSBENCH_ONEBIT_X86_64_LEVELS)
/// The kernels compiled for x86-64-v3 (AVX2), at its width.
extern const KernelSet kX86_64_V3Kernels;
/// The kernels compiled for x86-64-v4 (AVX-512), at its width.
extern const KernelSet kX86_64_V4Kernels;
#endif

/// The sets this machine runs, the baseline first and the widest last (found once).
std::span<const KernelSet* const> runnable_onebit_kernels();

/// The widest set this machine runs.
const KernelSet& onebit_kernels();

}  // namespace psbench::compress
