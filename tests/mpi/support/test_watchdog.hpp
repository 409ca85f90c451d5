#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace psbench::testing_support {

/// Exit status of a test process that the watchdog ends (the status timeout(1) uses).
inline constexpr int kWatchdogExitCode = 124;

/// Seconds from PSBENCH_TEST_DEADLINE_S (set by psbench_add_mpi_test below the ctest timeout), or 110.
[[nodiscard]] std::chrono::duration<double> deadline_from_environment();

/// A thread that ends the process when the deadline passes, after printing this rank and the test then
/// running: no MPI call (another thread may be inside MPI), only _Exit, on which mpirun ends the other
/// ranks. The destructor stops it.
class TestWatchdog {
 public:
  /// Starts the clock for rank, with deadline from now.
  TestWatchdog(int rank, std::chrono::duration<double> deadline);
  TestWatchdog(const TestWatchdog&) = delete;
  TestWatchdog& operator=(const TestWatchdog&) = delete;
  /// Stops the thread.
  ~TestWatchdog();
  /// Records the test now running ("" between tests).
  void set_current_test(const std::string& name);

 private:
  void watch();

  int rank_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::string current_test_;
  std::thread thread_;
};

/// Tells a watchdog which test is running.
class WatchdogListener : public testing::EmptyTestEventListener {
 public:
  /// Reports to watchdog, which must outlive the listener's use.
  explicit WatchdogListener(TestWatchdog& watchdog) : watchdog_(watchdog) {}
  /// Records the test's full name.
  void OnTestStart(const testing::TestInfo& info) override;
  /// Records that no test runs.
  void OnTestEnd(const testing::TestInfo& info) override;

 private:
  TestWatchdog& watchdog_;
};

}  // namespace psbench::testing_support
