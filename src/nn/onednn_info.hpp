#pragma once

#include <string>

namespace psbench::nn {

/// oneDNN version as "major.minor.patch", read from the library.
std::string onednn_version();

/// The instruction set oneDNN dispatches its kernels to on this machine ("avx2", "avx512_core_amx", ...):
/// the CPU's best, capped by ONEDNN_MAX_CPU_ISA when that is set.
std::string onednn_isa();

/// oneDNN's name of the implementation it picks for a fully connected layer's forward f32 matmul of that
/// shape, as the model builds it ("gemm:jit" on AVX2, "brg:avx512_core" on AVX-512).
std::string fully_connected_implementation(int batch, int inputs, int outputs);

}  // namespace psbench::nn
