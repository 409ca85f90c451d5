#include "common/thread_usage.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>

#include "common/resources.hpp"

namespace psbench {
namespace {

TEST(ThreadUsage, CountsTheCpuTimeOfABusyLoop) {
  const ThreadUsage before = thread_usage();
  const double start = thread_cpu_seconds();
  volatile double sink = 0.0;
  while (thread_cpu_seconds() - start < 0.02) sink = sink + 1.0;
  const ThreadUsage used = thread_usage() - before;
  EXPECT_GE(used.cpu_seconds, 0.019);
  EXPECT_LT(used.cpu_seconds, 5.0);
  EXPECT_GE(used.runqueue_seconds, 0.0);
}

TEST(ThreadUsage, CountsOneFaultPerFirstTouchedSmallPage) {
  constexpr std::size_t kPages = 1024;
  constexpr std::size_t kPage = 4096;
  void* mapping = mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  ASSERT_EQ(madvise(mapping, kPages * kPage, MADV_NOHUGEPAGE), 0);
  auto* bytes = static_cast<volatile unsigned char*>(mapping);
  const ThreadUsage before = thread_usage();
  for (std::size_t page = 0; page < kPages; ++page) bytes[page * kPage] = 1;
  const ThreadUsage first = thread_usage() - before;
  for (std::size_t page = 0; page < kPages; ++page) bytes[page * kPage] = 2;
  const ThreadUsage again = thread_usage() - before - first;
  munmap(mapping, kPages * kPage);
  EXPECT_GE(first.minor_faults, kPages);
  // An AddressSanitizer build also faults in the shadow of what it checks: an eighth of the region.
  EXPECT_LT(first.minor_faults, kPages + kPages / 4);
  EXPECT_LT(again.minor_faults, 8U);
  EXPECT_EQ(first.major_faults, 0U);
}

}  // namespace
}  // namespace psbench
