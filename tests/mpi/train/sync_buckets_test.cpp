// Sync mode's bucketed allreduce: however the gradient is cut into buckets (and so however much of the
// exchange starts during the backward pass), the workers end with the parameters of one allreduce of the
// whole gradient, and the results say how much of the exchange was hidden.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "train/exchange/persistent_allreduce.hpp"
#include "train_fixture.hpp"

namespace psbench::train::testing {
namespace {

// Bucket sizes: one float per bucket's worth of a small layer, one layer's part, and the whole gradient.
constexpr std::uint64_t kTinyBucket = 64;
constexpr std::uint64_t kSmallBucket = 4096;
constexpr std::uint64_t kWholeGradient = std::uint64_t{1} << 30U;

TrainOutcome sync_run(const mpi::Communicator& world, std::uint64_t bucket_bytes) {
  TrainOptions options = small_run(Mode::kSync, "sync_buckets_" + std::to_string(bucket_bytes));
  options.epochs = 1;
  options.bucket_bytes = bucket_bytes;
  return run_training(world, options);
}

// Sums of two values do not depend on their order; of three they may (a + b) + c against a + (b + c), so
// the bound is float rounding carried through one epoch of training.
TEST(SyncBuckets, AnyBucketSizeGivesTheParametersOfOneAllreduce) {
  const auto world = mpi::Communicator::world();
  const TrainOutcome whole = sync_run(world, kWholeGradient);
  for (const std::uint64_t bucket : {kSmallBucket, kTinyBucket}) {
    SCOPED_TRACE("--bucket-bytes " + std::to_string(bucket));
    const TrainOutcome bucketed = sync_run(world, bucket);
    if (world.rank() != 0) continue;
    ASSERT_EQ(bucketed.final_parameters.size(), whole.final_parameters.size());
    ASSERT_FALSE(whole.final_parameters.empty());
    float worst = 0.0F;
    for (std::size_t i = 0; i < whole.final_parameters.size(); ++i) {
      const float a = whole.final_parameters[i];
      const float b = bucketed.final_parameters[i];
      worst = std::max(worst, std::abs(a - b) / (1.0F + std::abs(a)));
    }
    if (world.size() <= 2) {
      EXPECT_EQ(worst, 0.0F);
    } else {
      EXPECT_LE(worst, 1e-5F);
    }
    EXPECT_EQ(bucketed.results["config"]["bucket_bytes"], bucket);
  }
}

// The buckets' allreduces, started again every step and polled as the sync exchange polls them (test_all during
// the backward pass, wait_all at the step's end), complete with every rank's sum in every MPI psbench builds on.
TEST(SyncBuckets, RestartedAllreducesCompleteUnderTestAllAndWaitAll) {
  const auto world = mpi::Communicator::world();
  std::array<float, 3> send{};
  std::array<float, 3> sum{};
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  const auto start = [&](std::size_t k, bool build) {
    const int first = k == 0 ? 0 : 2;
    const int count = k == 0 ? 2 : 1;
    const auto call = build ? allreduce_init : start_allreduce;
    PSBENCH_MPI_CALL(call(send.data() + first, sum.data() + first, count, MPI_FLOAT, world.native(), &requests[k]));
  };
  if (kPersistentAllreduce) {
    start(0, true);
    start(1, true);
  }
  for (int step = 1; step <= 3; ++step) {
    send.fill(static_cast<float>(step * (world.rank() + 1)));
    start(0, false);
    mpi::test_all(std::span(requests).first(1));
    start(1, false);
    mpi::wait_all(requests);
    const float expected = static_cast<float>(step * world.size() * (world.size() + 1) / 2);
    for (const float value : sum) EXPECT_EQ(value, expected) << "step " << step;
  }
  for (MPI_Request& request : requests) {
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
}

TEST(SyncBuckets, ResultsSayHowMuchOfTheExchangeWasHidden) {
  const auto world = mpi::Communicator::world();
  const TrainOutcome outcome = sync_run(world, kSmallBucket);
  if (world.rank() != 0) return;
  for (const auto& rank : outcome.results["per_rank"]) {
    const auto& exchange = rank["worker"]["exchange"];
    const double wall = exchange["wall_s"].get<double>();
    const double wait = exchange["wait_s"].get<double>();
    EXPECT_GT(wall, 0.0);
    EXPECT_GE(wait, 0.0);
    EXPECT_LE(wait, wall);
    EXPECT_NEAR(exchange["hidden_fraction"].get<double>(), 1.0 - wait / wall, 1e-12);
    // The blocked part is what the push phase records.
    EXPECT_NEAR(rank["phases"]["push"].get<double>(), wait, 1e-3);
  }
}

}  // namespace
}  // namespace psbench::train::testing
