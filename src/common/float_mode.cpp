#include "common/float_mode.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define PSBENCH_HAS_MXCSR 1
#endif

namespace psbench {

void flush_denormals_to_zero() {
#ifdef PSBENCH_HAS_MXCSR
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

bool denormals_flushed_to_zero() {
#ifdef PSBENCH_HAS_MXCSR
  return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON && _MM_GET_DENORMALS_ZERO_MODE() == _MM_DENORMALS_ZERO_ON;
#else
  return false;
#endif
}

}  // namespace psbench
