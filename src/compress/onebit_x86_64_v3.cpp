// Compiled with -march=x86-64-v3 (src/compress/CMakeLists.txt): only onebit_kernels() calls these, and only on a
// machine that runs x86-64-v3.
#include "compress/onebit_kernel_set.hpp"
#include "compress/onebit_kernels.hpp"

namespace psbench::compress {

const KernelSet kX86_64_V3Kernels{"x86-64-v3", kernels::OneBit<8>::quantize, kernels::OneBit<8>::unpack<false>,
                                  kernels::OneBit<8>::unpack<true>};

}  // namespace psbench::compress
