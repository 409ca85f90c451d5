#pragma once

#include <cstdint>

namespace psbench {

/// What the calling thread has used so far: CPU time, time spent runnable but waiting for a core, and
/// page faults. The difference of two snapshots says what a stretch of code waited on.
struct ThreadUsage {
  double cpu_seconds = 0.0;        ///< on a core, user and kernel (/proc/thread-self/schedstat, field 1)
  double runqueue_seconds = 0.0;   ///< runnable but not running: waiting for a core (schedstat, field 2)
  std::uint64_t minor_faults = 0;  ///< page faults served without I/O, e.g. first touches (RUSAGE_THREAD)
  std::uint64_t major_faults = 0;  ///< page faults that waited for I/O (RUSAGE_THREAD)
};

/// A snapshot of the calling thread's usage; zero fields where the kernel does not report them.
ThreadUsage thread_usage();

/// What was used between two snapshots of one thread.
ThreadUsage operator-(const ThreadUsage& later, const ThreadUsage& earlier);

}  // namespace psbench
