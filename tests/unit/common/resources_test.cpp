#include "common/resources.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace psbench {
namespace {

TEST(ThreadCpuSeconds, CountsWorkButNotSleep) {
  const double start = thread_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double after_sleep = thread_cpu_seconds();
  EXPECT_GE(after_sleep, start);
  EXPECT_LT(after_sleep - start, 0.1) << "a sleeping thread runs on no core";
  volatile double sink = 0.0;
  while (thread_cpu_seconds() - after_sleep < 0.05) sink = sink + 1.0;
  EXPECT_GE(thread_cpu_seconds() - after_sleep, 0.05);
}

}  // namespace
}  // namespace psbench
