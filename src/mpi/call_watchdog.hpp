#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace psbench::mpi {

/// Ends the job when one blocking MPI call outlasts a timeout. Some calls wait inside the MPI library for a peer to
/// take part: a flush of one-sided operations that the library carries by messages (MPICH 4.0.2 over UCX) completes
/// only once the target enters MPI, so a stalled peer hangs the caller where its own stall watch cannot look. A
/// thread of the watchdog's own looks at the watched call a few times per timeout; the watched call costs two atomic
/// stores.
class CallWatchdog {
 public:
  /// The error for a call aimed at world rank peer that has waited seconds (without "psbench: error: ").
  using Message = std::function<std::string(int peer, double seconds)>;

  /// Watches calls for timeout_s (0 or less: never, and no thread is started), naming them with message.
  CallWatchdog(double timeout_s, Message message);
  /// Stops and joins the thread.
  ~CallWatchdog();
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;

  /// Runs call() (blocking, aimed at world rank peer) under the watch: should it not return within the timeout, the
  /// watchdog prints "psbench: error: <message>" and ends every rank of the job (exit code 3).
  template <typename Call>
  void run(int peer, Call&& call) {
    const Armed armed(*this, peer);
    std::forward<Call>(call)();
  }

 private:
  /// Arms the watch for one call and disarms it when the call returns or throws.
  class Armed {
   public:
    Armed(CallWatchdog& watchdog, int peer);
    ~Armed();
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    CallWatchdog& watchdog_;
  };

  /// The thread: looks at the armed call every quarter of the timeout (at most every half second).
  void watch();

  double timeout_s_;
  Message message_;
  std::atomic<int> peer_{-1};
  std::atomic<std::int64_t> armed_at_ns_{0};  // steady clock at arming; 0: no call watched
  std::mutex mutex_;
  std::condition_variable stopping_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace psbench::mpi
