#include "mpi/wake_counter.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <ctime>
#include <string>

#include "common/error.hpp"

namespace psbench::mpi {
namespace {

static_assert(std::endian::native == std::endian::little, "the futex word is the count's low half");
static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t) &&
                  std::atomic<std::uint64_t>::is_always_lock_free,
              "a shared count is a plain 64-bit word");

// The count's low 32 bits, the word the kernel compares and queues waiters on (shared, not private: the
// futex key is then the page, so it matches across the processes that map the window).
std::uint32_t* futex_word(WakeCounter& counter) { return reinterpret_cast<std::uint32_t*>(&counter.value); }

void wake_sleepers(WakeCounter& counter) {
  if (counter.sleepers.load(std::memory_order_seq_cst) == 0) return;
  if (syscall(SYS_futex, futex_word(counter), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0) < 0) {
    throw SystemError("futex wake failed (errno " + std::to_string(errno) + ")");
  }
}

}  // namespace

void publish(WakeCounter& counter, std::uint64_t value) {
  counter.value.store(value, std::memory_order_seq_cst);  // ordered before the load of sleepers
  wake_sleepers(counter);
}

void publish_increment(WakeCounter& counter) {
  counter.value.fetch_add(1, std::memory_order_seq_cst);
  wake_sleepers(counter);
}

bool sleep_until_changed(WakeCounter& counter, std::uint64_t seen, std::chrono::microseconds timeout) {
  // Registered before the count is read again: a publisher either sees the registration and wakes this
  // waiter, or published before that read, which then finds the change (both sides are sequentially consistent).
  counter.sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (counter.value.load(std::memory_order_seq_cst) == seen) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const timespec relative{static_cast<std::time_t>(seconds.count()),
                            static_cast<long>(std::chrono::nanoseconds(timeout - seconds).count())};
    // EAGAIN (the word changed first), EINTR and ETIMEDOUT all mean: look at the count again.
    if (syscall(SYS_futex, futex_word(counter), FUTEX_WAIT, static_cast<std::uint32_t>(seen), &relative, nullptr, 0) <
            0 &&
        errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT) {
      counter.sleepers.fetch_sub(1, std::memory_order_seq_cst);
      throw SystemError("futex wait failed (errno " + std::to_string(errno) + ")");
    }
  }
  counter.sleepers.fetch_sub(1, std::memory_order_seq_cst);
  return counter.value.load(std::memory_order_acquire) != seen;
}

}  // namespace psbench::mpi
