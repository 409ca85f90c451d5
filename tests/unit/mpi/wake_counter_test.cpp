// The futex under the shared-window waits: a sleeper in another process is woken by a publication (the
// futex is shared, not private), a sleep ends by itself at its timeout, and wait_on_counter, sleeping
// where the spin budget is zero, returns when the count is published and hands control to its watch after
// every sleep, so a stall watchdog still ends a wait that nothing answers.
#include "mpi/wake_counter.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>

#include "mpi/backoff_wait.hpp"

namespace psbench::mpi {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A counter in pages shared with a forked child, as an MPI-3 window shares them between ranks.
class SharedCounter {
 public:
  SharedCounter()
      : memory_(mmap(nullptr, sizeof(WakeCounter), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)) {
    if (memory_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    counter_ = new (memory_) WakeCounter();
  }
  ~SharedCounter() { munmap(memory_, sizeof(WakeCounter)); }
  SharedCounter(const SharedCounter&) = delete;
  SharedCounter& operator=(const SharedCounter&) = delete;
  WakeCounter& operator*() const { return *counter_; }

 private:
  void* memory_;
  WakeCounter* counter_ = nullptr;
};

TEST(WakeCounter, SleeperInAnotherProcessIsWokenByAPublication) {
  SharedCounter counter;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // sleeps for up to 30 s: only a wake-up ends it sooner
    const auto start = Clock::now();
    const bool changed = sleep_until_changed(*counter, 0, std::chrono::seconds(30));
    _exit(changed && Clock::now() - start < std::chrono::seconds(20) ? 0 : 1);
  }
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while ((*counter).sleepers.load() == 0 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ((*counter).sleepers.load(), 1U) << "the child never went to sleep";
  std::this_thread::sleep_for(milliseconds(50));  // the child is inside the futex by now
  publish(*counter, 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the sleeper was not woken (or saw no change)";
  EXPECT_EQ((*counter).sleepers.load(), 0U);
}

TEST(WakeCounter, SleepEndsAtItsTimeoutWhenNothingIsPublished) {
  WakeCounter counter;
  counter.value = 7;
  const auto start = Clock::now();
  EXPECT_FALSE(sleep_until_changed(counter, 7, milliseconds(20)));
  EXPECT_GE(Clock::now() - start, milliseconds(19));
  EXPECT_EQ(counter.sleepers.load(), 0U);
}

TEST(WakeCounter, ACountAlreadyChangedReturnsAtOnce) {
  WakeCounter counter;
  counter.value = 5;
  const auto start = Clock::now();
  EXPECT_TRUE(sleep_until_changed(counter, 4, std::chrono::seconds(30)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
}

TEST(WakeCounter, PublishIncrementAddsOne) {
  WakeCounter counter;
  publish_increment(counter);
  publish_increment(counter);
  EXPECT_EQ(counter.value.load(), 2U);
}

TEST(WaitOnCounter, ReturnsOncePublishedFromAnotherThread) {
  for (const auto budget : {std::chrono::microseconds(0), std::chrono::microseconds(1000)}) {
    WakeCounter counter;
    std::thread publisher([&] {
      std::this_thread::sleep_for(milliseconds(30));
      publish(counter, 1);
    });
    wait_on_counter(
        budget, counter, [&] { return counter.value.load() == 1; }, [] {});
    publisher.join();
    EXPECT_EQ(counter.value.load(), 1U);
  }
}

// Waits on a counter nobody publishes, with a watch that throws on its third call: how many calls it saw.
int watches_until_a_throw(std::chrono::microseconds budget) {
  WakeCounter counter;
  int watches = 0;
  try {
    wait_on_counter(
        budget, counter, [] { return false; },
        [&] {
          if (++watches == 3) throw std::runtime_error("stalled");
        });
  } catch (const std::runtime_error&) {
    return watches;
  }
  return -1;  // the wait returned without its condition: a failure the caller's EXPECT shows
}

TEST(WaitOnCounter, SleepingWaitHandsEachTimeoutToTheWatch) {
  const auto start = Clock::now();
  EXPECT_EQ(watches_until_a_throw(std::chrono::microseconds(0)), 3);
  EXPECT_GE(Clock::now() - start, 2 * kSleepSlice) << "the watch ran before the sleeps timed out";
}

TEST(WaitOnCounter, SpinningWaitCallsTheWatchToo) {
  EXPECT_EQ(watches_until_a_throw(std::chrono::microseconds(1000)), 3);
}

}  // namespace
}  // namespace psbench::mpi
