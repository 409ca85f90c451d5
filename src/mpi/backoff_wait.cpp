#include "mpi/backoff_wait.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "common/resources.hpp"
#include "mpi/call.hpp"

namespace psbench::mpi {
namespace {

constexpr int kPollsPerClockCheck = 64;
constexpr int kSpinPolls = 64;
constexpr int kYieldPolls = 256;
constexpr int kFirstSleepMicroseconds = 1;
constexpr int kLongestSleepMicroseconds = 50;

constexpr std::chrono::microseconds kDedicatedSpinBudget{10000};

std::atomic<std::chrono::microseconds::rep> spin_budget_us{0};

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void set_spin_budget(std::chrono::microseconds budget) { spin_budget_us.store(budget.count()); }

std::chrono::microseconds spin_budget() { return std::chrono::microseconds(spin_budget_us.load()); }

void configure_waits(const Communicator& world) {
  const Communicator node = world.split_by_node();  // collective: every rank splits, set or not
  const char* text = std::getenv("PSBENCH_SPIN_US");
  if (text == nullptr || *text == '\0') {
    set_spin_budget(node.size() <= online_cores() ? kDedicatedSpinBudget : std::chrono::microseconds(0));
    return;
  }
  char* end = nullptr;
  const long long micros = std::strtoll(text, &end, 10);
  if (*end != '\0' || micros < 0) {
    throw UserError(std::string("PSBENCH_SPIN_US must be a count of microseconds, got '") + text + "'");
  }
  set_spin_budget(std::chrono::microseconds(micros));
}

namespace detail {

Backoff::Backoff(std::chrono::microseconds budget)
    : spin_until_(std::chrono::steady_clock::now() + budget), spinning_(budget.count() > 0) {
  // Sleeps of a few microseconds need a small timer slack (Linux defaults to 50 us).
  static const bool slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)slack_set;
}

void Backoff::pause() {
  if (spinning_) {
    cpu_relax();
    if (++attempt_ % kPollsPerClockCheck == 0 && std::chrono::steady_clock::now() >= spin_until_) {
      spinning_ = false;
      attempt_ = 0;
    }
    return;
  }
  const int attempt = attempt_++;
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
  wait_with_backoff([&] { return test_all(requests); });
}

// One MPI_Test per request, not MPI_Testall: MPICH 4.0.2's MPI_Testall fails ("See the MPI_ERROR field in
// MPI_Status") on started persistent collectives (MPI_Allreduce_init, MPI_Start), even on one request, while
// MPI_Test completes them there and in Open MPI alike. Testing an inactive or null request again is cheap.
bool test_all(std::span<MPI_Request> requests) {
  for (MPI_Request& request : requests) {
    int done = 0;
    PSBENCH_MPI_CALL(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done == 0) return false;
  }
  return true;
}

}  // namespace psbench::mpi
