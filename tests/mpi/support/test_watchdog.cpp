#include "test_watchdog.hpp"

#include <cstdio>
#include <cstdlib>

namespace psbench::testing_support {

std::chrono::duration<double> deadline_from_environment() {
  const char* text = std::getenv("PSBENCH_TEST_DEADLINE_S");
  const double seconds = text != nullptr ? std::atof(text) : 0.0;
  return std::chrono::duration<double>(seconds > 0.0 ? seconds : 110.0);
}

TestWatchdog::TestWatchdog(int rank, std::chrono::duration<double> deadline)
    : rank_(rank),
      start_(std::chrono::steady_clock::now()),
      deadline_(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline)),
      thread_([this] { watch(); }) {}

TestWatchdog::~TestWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  thread_.join();
}

void TestWatchdog::set_current_test(const std::string& name) {
  const std::lock_guard<std::mutex> lock(mutex_);
  current_test_ = name;
}

void TestWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_requested_.wait_until(lock, deadline_, [this] { return stopping_; })) return;
  const double seconds = std::chrono::duration<double>(deadline_ - start_).count();
  std::fprintf(stderr,
               "[rank %d] watchdog: %s still running %.0f s after the test binary started (PSBENCH_TEST_DEADLINE_S): "
               "a rank is stalled; ending the job\n",
               rank_, current_test_.empty() ? "no test (between tests)" : current_test_.c_str(), seconds);
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(kWatchdogExitCode);
}

void WatchdogListener::OnTestStart(const testing::TestInfo& info) {
  watchdog_.set_current_test(std::string(info.test_suite_name()) + "." + info.name());
}

void WatchdogListener::OnTestEnd(const testing::TestInfo& /*info*/) { watchdog_.set_current_test(""); }

}  // namespace psbench::testing_support
