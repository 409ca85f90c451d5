#include "common/resources.hpp"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>

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

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  const std::string key = "MemAvailable:";
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind(key, 0) != 0) continue;
    std::uint64_t kib = 0;
    std::istringstream(line.substr(key.size())) >> kib;  // "MemAvailable:   123456 kB"
    return kib * 1024U;
  }
  return 0;
}

int online_cores() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

std::uint64_t last_level_cache_bytes() {
  int deepest = 0;
  std::uint64_t bytes = 0;
  for (int index = 0;; ++index) {
    const std::string folder = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(folder + "level");
    std::ifstream size_file(folder + "size");
    int level = 0;
    std::uint64_t size = 0;
    std::string unit;
    if (!(level_file >> level) || !(size_file >> size)) return bytes;
    size_file >> unit;  // "32768K": the size and its unit, read apart
    if (unit == "K") size <<= 10U;
    if (unit == "M") size <<= 20U;
    if (level > deepest) {
      deepest = level;
      bytes = size;
    }
  }
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string key = "model name";
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "unknown" : line.substr(first);
  }
  return "unknown";
}

}  // namespace psbench
