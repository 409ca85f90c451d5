#include "mpi/backoff_wait.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "mpi/call.hpp"

namespace psbench::mpi {
namespace {

constexpr int kSpinPolls = 64;
constexpr int kYieldPolls = 256;
constexpr int kFirstSleepMicroseconds = 1;
constexpr int kLongestSleepMicroseconds = 50;

}  // namespace

namespace detail {

void back_off(int attempt) {
  // Sleeps of a few microseconds need a small timer slack (Linux defaults to 50 us).
  static const bool slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)slack_set;
  if (attempt < kSpinPolls) return;
  if (attempt < kSpinPolls + kYieldPolls) {
    sched_yield();
    return;
  }
  const int doublings = std::min(attempt - kSpinPolls - kYieldPolls, 6);
  const int micros = std::min(kFirstSleepMicroseconds << doublings, kLongestSleepMicroseconds);
  std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

}  // namespace detail

MPI_Status wait_for_message(MPI_Comm comm, int source, int tag) {
  MPI_Status status{};
  wait_with_backoff([&] {
    int found = 0;
    PSBENCH_MPI_CALL(MPI_Iprobe(source, tag, comm, &found, &status));
    return found != 0;
  });
  return status;
}

void wait_all(std::span<MPI_Request> requests) {
  wait_with_backoff([&] {
    int done = 0;
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE));
    return done != 0;
  });
}

}  // namespace psbench::mpi
