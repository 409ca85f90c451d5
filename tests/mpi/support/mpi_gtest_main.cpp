// gtest main for MPI tests: only rank 0 prints progress, any rank prints its own assertion failures, and a
// failure on any rank fails the test on every rank (reduced per test and for the exit code). Nothing hangs:
// a fatal assertion on one rank ends the job at once with that rank's message (the other ranks may be
// waiting for it), and a watchdog names the rank and the test still running when the binary's deadline
// (PSBENCH_TEST_DEADLINE_S, set below ctest's timeout) passes, then ends the job.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "mpi/environment.hpp"
#include "test_watchdog.hpp"

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

// A fatal assertion returns from the test on one rank only: the others may wait for it forever (a
// collective, a receive), so the job ends here, naming the rank and the test.
class FatalFailureAbort : public testing::EmptyTestEventListener {
 public:
  explicit FatalFailureAbort(int rank) : rank_(rank) {}
  // Kept here: gtest holds its own lock while it reports a result, so current_test_info() would deadlock.
  void OnTestStart(const testing::TestInfo& info) override {
    test_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.fatally_failed()) return;
    std::fprintf(stderr, "[rank %d] fatal failure in %s: ending the job (another rank may be waiting for this one)\n",
                 rank_, test_.c_str());
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

 private:
  int rank_;
  std::string test_;
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
  psbench::testing_support::TestWatchdog watchdog(rank, psbench::testing_support::deadline_from_environment());
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  if (environment.world().size() > 1) listeners.Append(new FatalFailureAbort(rank));
  listeners.Append(new psbench::testing_support::WatchdogListener(watchdog));
  listeners.Append(new AnyRankFailureListener);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  return environment.world().allreduce(failed, ReduceOp::kMax);
}
