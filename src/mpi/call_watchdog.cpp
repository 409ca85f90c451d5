#include "mpi/call_watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/error.hpp"
#include "mpi/environment.hpp"

namespace psbench::mpi {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

CallWatchdog::CallWatchdog(double timeout_s, Message message) : timeout_s_(timeout_s), message_(std::move(message)) {
  if (timeout_s_ > 0.0) thread_ = std::thread([this] { watch(); });
}

CallWatchdog::~CallWatchdog() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.notify_all();
  thread_.join();
}

CallWatchdog::Armed::Armed(CallWatchdog& watchdog, int peer) : watchdog_(watchdog) {
  if (!watchdog_.thread_.joinable()) return;
  watchdog_.peer_.store(peer, std::memory_order_relaxed);
  watchdog_.armed_at_ns_.store(steady_ns(), std::memory_order_release);
}

CallWatchdog::Armed::~Armed() { watchdog_.armed_at_ns_.store(0, std::memory_order_release); }

void CallWatchdog::watch() {
  const auto period = std::chrono::duration<double>(std::min(timeout_s_ / 4.0, 0.5));
  std::unique_lock lock(mutex_);
  while (!stopping_.wait_for(lock, period, [this] { return stop_; })) {
    const std::int64_t armed_at = armed_at_ns_.load(std::memory_order_acquire);
    if (armed_at == 0) continue;
    const double waited = static_cast<double>(steady_ns() - armed_at) * 1e-9;
    if (waited < timeout_s_) continue;
    std::fprintf(stderr, "%s\n", format_error_line(message_(peer_.load(std::memory_order_relaxed), waited)).c_str());
    // The job runs at MPI_THREAD_FUNNELED and the main thread is inside the MPI library, so this MPI_Abort from a
    // second thread is outside the standard's promise; MPICH and Open MPI both end the job through the launcher
    // without touching the stuck call, and abort() falls back to std::_Exit should MPI_Abort return.
    Environment::abort(kSystemErrorExitCode);
  }
}

}  // namespace psbench::mpi
