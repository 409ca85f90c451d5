#include "common/thread_usage.hpp"

#include <sys/resource.h>

#include <fstream>

namespace psbench {

ThreadUsage thread_usage() {
  ThreadUsage usage;
  // schedstat: nanoseconds on a core, nanoseconds waiting on a run queue, time slices run.
  std::ifstream schedstat("/proc/thread-self/schedstat");
  std::uint64_t on_core_ns = 0;
  std::uint64_t waiting_ns = 0;
  if (schedstat >> on_core_ns >> waiting_ns) {
    usage.cpu_seconds = 1e-9 * static_cast<double>(on_core_ns);
    usage.runqueue_seconds = 1e-9 * static_cast<double>(waiting_ns);
  }
  rusage own{};
  if (getrusage(RUSAGE_THREAD, &own) == 0) {
    usage.minor_faults = static_cast<std::uint64_t>(own.ru_minflt);
    usage.major_faults = static_cast<std::uint64_t>(own.ru_majflt);
  }
  return usage;
}

ThreadUsage operator-(const ThreadUsage& later, const ThreadUsage& earlier) {
  return {later.cpu_seconds - earlier.cpu_seconds, later.runqueue_seconds - earlier.runqueue_seconds,
          later.minor_faults - earlier.minor_faults, later.major_faults - earlier.major_faults};
}

}  // namespace psbench
