#pragma once

#include <cstdint>
#include <string>

namespace psbench {

/// Peak resident set size of this process in bytes (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes();

/// CPU seconds the calling thread has run, in user and kernel mode (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

/// Memory this node can still give without swapping, in bytes (MemAvailable in /proc/meminfo); 0 where unknown.
std::uint64_t available_memory_bytes();

/// Host name of this machine.
std::string host_name();

/// Number of online CPU cores on this machine.
int online_cores();

/// Size in bytes of the largest-level cache that CPU 0 sees (its L3 slice: the cache its cores share, not the
/// socket's total that sysconf reports), from /sys/devices/system/cpu/cpu0/cache; 0 where unknown.
std::uint64_t last_level_cache_bytes();

/// The CPU's model name as /proc/cpuinfo gives it ("AMD EPYC 7B13"), or "unknown".
std::string cpu_model_name();

}  // namespace psbench
