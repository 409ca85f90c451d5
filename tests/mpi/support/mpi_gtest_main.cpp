// gtest main for MPI tests: only rank 0 prints progress, any rank prints its own assertion failures, and a
// failure on any rank fails the test on every rank (reduced per test and for the exit code).
#include <gtest/gtest.h>

#include <cstdio>

#include "mpi/environment.hpp"

namespace {

using psbench::mpi::Communicator;
using psbench::mpi::ReduceOp;

// Prints a non-root rank's failed assertions, which the removed default printer would have shown.
class RankFailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

// Agrees on each test's outcome so that rank 0 names a test that failed only elsewhere.
class AnyRankFailureListener : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& info) override {
    const int failed_here = info.result()->Failed() ? 1 : 0;
    const auto world = Communicator::world();
    const int failed_anywhere = world.allreduce(failed_here, ReduceOp::kMax);
    if (world.rank() == 0 && failed_anywhere != 0 && failed_here == 0) {
      std::fprintf(stderr, "[  FAILED  ] %s.%s failed on another rank\n", info.test_suite_name(), info.name());
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  const int rank = environment.world().rank();
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  listeners.Append(new AnyRankFailureListener);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  return environment.world().allreduce(failed, ReduceOp::kMax);
}
