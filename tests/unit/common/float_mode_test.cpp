// flush_denormals_to_zero: denormal results and inputs become zero, the mode is reported, and a thread started
// afterwards inherits it (oneDNN's threads, where a rank has several).
#include "common/float_mode.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

namespace psbench {
namespace {

TEST(FloatMode, FlushesDenormalResultsAndInputsToZero) {
  const unsigned int saved = _mm_getcsr();
  volatile float smallest_normal = std::numeric_limits<float>::min();
  volatile float denormal = std::numeric_limits<float>::denorm_min();
  volatile float half = 0.5F;
  volatile float two = 2.0F;
  EXPECT_FALSE(denormals_flushed_to_zero()) << "a new process keeps denormals";
  EXPECT_GT(smallest_normal * half, 0.0F) << "gradual underflow by default";
  EXPECT_GT(denormal * two, 0.0F);
  flush_denormals_to_zero();
  EXPECT_TRUE(denormals_flushed_to_zero());
  EXPECT_EQ(smallest_normal * half, 0.0F) << "a denormal result is flushed";
  EXPECT_EQ(denormal * two, 0.0F) << "a denormal input reads as zero";
  bool inherited = false;
  std::thread([&inherited] { inherited = denormals_flushed_to_zero(); }).join();
  EXPECT_TRUE(inherited);
  _mm_setcsr(saved);
}

}  // namespace
}  // namespace psbench
#endif
