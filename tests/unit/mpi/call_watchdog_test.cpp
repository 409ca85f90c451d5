// The watchdog over blocking MPI calls: a call that outlasts the timeout ends the process with exit code 3 and the
// line the watchdog was given, naming the peer and the time waited; a call that returns in time, or a watchdog with
// no timeout, leaves the process running. (Without MPI running, the abort is the process's own exit.)
#include "mpi/call_watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace psbench::mpi {
namespace {

CallWatchdog::Message peer_message() {
  return [](int peer, double seconds) {
    return "peer " + std::to_string(peer) + " silent for " + std::to_string(static_cast<int>(seconds * 10)) +
           " tenths of a second";
  };
}

TEST(CallWatchdogDeathTest, ACallPastItsTimeoutEndsTheProcessNamingThePeer) {
  EXPECT_EXIT(
      {
        CallWatchdog watchdog(0.2, peer_message());
        watchdog.run(7, [] { std::this_thread::sleep_for(std::chrono::seconds(5)); });
        std::exit(0);
      },
      testing::ExitedWithCode(3), "psbench: error: peer 7 silent for [2-9] tenths of a second");
}

TEST(CallWatchdog, CallsThatReturnInTimeAreLeftAlone) {
  CallWatchdog watchdog(0.2, peer_message());
  int calls = 0;
  for (int i = 0; i < 3; ++i) {
    watchdog.run(1, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ++calls;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // disarmed: past the timeout, nothing fires
  EXPECT_EQ(calls, 3);
}

TEST(CallWatchdog, NoTimeoutWatchesNothing) {
  CallWatchdog watchdog(0.0, peer_message());
  bool ran = false;
  watchdog.run(1, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ran = true;
  });
  EXPECT_TRUE(ran);
}

TEST(CallWatchdog, AThrowingCallDisarmsTheWatch) {
  CallWatchdog watchdog(0.2, peer_message());
  EXPECT_THROW(watchdog.run(1, [] { throw std::runtime_error("failed"); }), std::runtime_error);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  SUCCEED() << "the process still runs past the timeout";
}

}  // namespace
}  // namespace psbench::mpi
