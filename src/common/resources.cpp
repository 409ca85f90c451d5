#include "common/resources.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <array>

namespace psbench {

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024U;
}

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

int online_cores() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

}  // namespace psbench
