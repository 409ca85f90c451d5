#pragma once

namespace psbench {

/// Makes this thread's float arithmetic flush denormals to zero, results and inputs (x86: MXCSR's FTZ and DAZ
/// bits), as ML frameworks do: on Intel cores an operation on a denormal takes a microcode assist, and a
/// server's momentum decaying through the denormal range made its SGD update 3-5x slower. Threads started
/// afterwards inherit the mode. Does nothing on other architectures.
void flush_denormals_to_zero();

/// True when this thread flushes denormal results and inputs to zero (false where there is no such mode).
bool denormals_flushed_to_zero();

}  // namespace psbench
