#include "ps/idle_wait.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "mpi/call.hpp"

namespace psbench::ps {
namespace {

constexpr int kSpinProbes = 64;
constexpr int kYieldProbes = 256;
constexpr auto kFirstSleep = std::chrono::microseconds(1);
constexpr auto kLongestSleep = std::chrono::microseconds(50);

}  // namespace

MPI_Status wait_for_message(MPI_Comm comm, int source, int tag) {
  // Sleeps of a few microseconds need a small timer slack (Linux defaults to 50 us).
  static const bool slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)slack_set;
  MPI_Status status{};
  int found = 0;
  auto sleep = kFirstSleep;
  for (int attempt = 0;; ++attempt) {
    PSBENCH_MPI_CALL(MPI_Iprobe(source, tag, comm, &found, &status));
    if (found != 0) return status;
    if (attempt < kSpinProbes) continue;
    if (attempt < kSpinProbes + kYieldProbes) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, kLongestSleep);
  }
}

}  // namespace psbench::ps
