// Compiled with -march=x86-64-v4 (src/compress/CMakeLists.txt): only onebit_kernels() calls these, and only on a
// machine that runs x86-64-v4.
#include "compress/onebit_kernel_set.hpp"
#include "compress/onebit_kernels.hpp"

namespace psbench::compress {

const KernelSet kX86_64_V4Kernels{"x86-64-v4", kernels::OneBit<16>::quantize, kernels::OneBit<16>::unpack<false>,
                                  kernels::OneBit<16>::unpack<true>};

}  // namespace psbench::compress
