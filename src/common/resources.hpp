#pragma once

#include <cstdint>
#include <string>

namespace psbench {

/// Peak resident set size of this process in bytes (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes();

/// Host name of this machine.
std::string host_name();

/// Number of online CPU cores on this machine.
int online_cores();

/// The CPU's model name as /proc/cpuinfo gives it ("AMD EPYC 7B13"), or "unknown".
std::string cpu_model_name();

}  // namespace psbench
