#include "common/phase_timer.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace psbench {
namespace {

TEST(PhaseTimer, AccumulatesSecondsAndCountsPerPhase) {
  PhaseTimer timer;
  timer.add(Phase::kPush, 0.25);
  timer.add(Phase::kPush, 0.5);
  timer.add(Phase::kCompute, 1.0);
  EXPECT_DOUBLE_EQ(timer.seconds(Phase::kPush), 0.75);
  EXPECT_EQ(timer.count(Phase::kPush), 2U);
  EXPECT_DOUBLE_EQ(timer.seconds(Phase::kCompute), 1.0);
  EXPECT_EQ(timer.count(Phase::kPull), 0U);
  EXPECT_DOUBLE_EQ(timer.seconds(Phase::kPull), 0.0);
}

TEST(PhaseTimer, ScopedPhaseMeasuresAtLeastTheSleep) {
  PhaseTimer timer;
  {
    ScopedPhase scope(timer, Phase::kInitIo);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(timer.seconds(Phase::kInitIo), 0.019);
  EXPECT_LT(timer.seconds(Phase::kInitIo), 5.0);
  EXPECT_EQ(timer.count(Phase::kInitIo), 1U);
}

TEST(PhaseTimer, MonotonicClockNeverGoesBack) {
  double previous = monotonic_seconds();
  for (int i = 0; i < 1000; ++i) {
    const double now = monotonic_seconds();
    ASSERT_GE(now, previous);
    previous = now;
  }
}

TEST(PhaseTimer, NamesMatchTheResultsFileKeys) {
  EXPECT_EQ(phase_name(Phase::kInitIo), "init_io");
  EXPECT_EQ(phase_name(Phase::kInitTotal), "init_total");
  EXPECT_EQ(phase_name(Phase::kCompute), "compute");
  EXPECT_EQ(phase_name(Phase::kPush), "push");
  EXPECT_EQ(phase_name(Phase::kPull), "pull");
  EXPECT_EQ(phase_name(Phase::kCompress), "compress");
  EXPECT_EQ(phase_name(Phase::kServerUpdate), "server_update");
  EXPECT_EQ(phase_name(Phase::kServerIdle), "server_idle");
  EXPECT_EQ(phase_name(Phase::kTotal), "total");
}

}  // namespace
}  // namespace psbench
