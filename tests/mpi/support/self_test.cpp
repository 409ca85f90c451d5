// Tests of the MPI gtest main itself, each planted to go wrong on one rank: run only by
// expect_job_end.cmake (never by the suite), which checks that the job ends fast, naming the rank.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "mpi/communicator.hpp"

namespace {

// Rank 1 never reaches the barrier: the watchdog must name it and this test.
TEST(MpiMainSelfTest, StallOnOneRankIsNamed) {
  const auto world = psbench::mpi::Communicator::world();
  if (world.rank() == 1) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  world.barrier();
}

// Rank 1 fails an assertion and leaves the test; rank 0 waits for it in a barrier that never completes.
TEST(MpiMainSelfTest, FatalFailureOnOneRankEndsTheJob) {
  const auto world = psbench::mpi::Communicator::world();
  if (world.rank() == 1) {
    ASSERT_EQ(world.rank(), 0) << "planted failure on rank 1";
  }
  world.barrier();
}

}  // namespace
