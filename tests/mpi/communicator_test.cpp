#include "mpi/communicator.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "common/resources.hpp"
#include "mpi/collective_error.hpp"

namespace psbench::mpi {
namespace {

TEST(Communicator, WorldMatchesRawMpi) {
  const auto world = Communicator::world();
  int rank = -1;
  int size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(world.rank(), rank);
  EXPECT_EQ(world.size(), size);
  EXPECT_TRUE(world.valid());
}

TEST(Communicator, AllreduceSumOfRanksIsTriangularNumber) {
  const auto world = Communicator::world();
  const int n = world.size();
  EXPECT_EQ(world.allreduce(world.rank(), ReduceOp::kSum), n * (n - 1) / 2);
  EXPECT_EQ(world.allreduce(world.rank(), ReduceOp::kMax), n - 1);
  EXPECT_EQ(world.allreduce(world.rank(), ReduceOp::kMin), 0);
  std::vector<double> values{1.0, static_cast<double>(world.rank())};
  world.allreduce(std::span<double>(values), ReduceOp::kSum);
  EXPECT_DOUBLE_EQ(values[0], n);
  EXPECT_DOUBLE_EQ(values[1], n * (n - 1) / 2.0);
}

TEST(Communicator, SplitByParityGivesOrderedSubgroups) {
  const auto world = Communicator::world();
  const int color = world.rank() % 2;
  const auto half = world.split(color, world.rank());
  ASSERT_TRUE(half.valid());
  EXPECT_EQ(half.rank(), world.rank() / 2);
  const int expected_size = color == 0 ? (world.size() + 1) / 2 : world.size() / 2;
  EXPECT_EQ(half.size(), expected_size);
  EXPECT_EQ(half.allreduce(1, ReduceOp::kSum), expected_size);
}

TEST(Communicator, MoveLeavesSourceEmpty) {
  const auto world = Communicator::world();
  auto copy = world.split(0, world.rank());
  Communicator moved(std::move(copy));
  EXPECT_FALSE(copy.valid());  // NOLINT(bugprone-use-after-move): moved-from state is the point
  EXPECT_TRUE(moved.valid());
  EXPECT_EQ(moved.size(), world.size());
}

TEST(Communicator, BroadcastAndGatherStrings) {
  const auto world = Communicator::world();
  std::string text = world.rank() == 0 ? "from root" : "";
  world.broadcast(text, 0);
  EXPECT_EQ(text, "from root");
  const auto all = world.gather("r" + std::to_string(world.rank()), 0);
  if (world.rank() == 0) {
    ASSERT_EQ(static_cast<int>(all.size()), world.size());
    for (int r = 0; r < world.size(); ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], "r" + std::to_string(r));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST(CollectiveError, EveryRankSeesTheLowestFailingRanksMessage) {
  const auto world = Communicator::world();
  const int failing = world.size() - 1;
  try {
    run_collectively(world, [&] {
      if (world.rank() == failing) throw UserError("bad input on rank " + std::to_string(failing));
    });
    FAIL() << "no rank threw";
  } catch (const CollectiveUserError& error) {
    EXPECT_EQ(std::string(error.what()), "bad input on rank " + std::to_string(failing));
  }
  EXPECT_NO_THROW(run_collectively(world, [] {}));
}

TEST(CollectiveError, RanksWaitingForASlowStepLeaveTheCore) {
  const auto world = Communicator::world();
  if (world.size() < 2) GTEST_SKIP() << "needs a rank to wait for another";
  constexpr auto kSlowStep = std::chrono::milliseconds(400);
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  run_collectively(world, [&] {
    if (world.rank() == 0) std::this_thread::sleep_for(kSlowStep);
  });
  const double cpu = thread_cpu_seconds() - cpu_start;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (world.rank() == 0) return;
  // A blocking MPI_Allreduce spins for the whole wait (a core's worth of CPU); the backoff sleeps.
  EXPECT_GE(wall, 0.9 * std::chrono::duration<double>(kSlowStep).count());
  EXPECT_LT(cpu, 0.5 * wall) << "rank " << world.rank() << " used " << cpu << " s of CPU in a " << wall << " s wait";
}

}  // namespace
}  // namespace psbench::mpi
