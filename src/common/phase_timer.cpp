#include "common/phase_timer.hpp"

namespace psbench {

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::kInitIo: return "init_io";
    case Phase::kInitTotal: return "init_total";
    case Phase::kCompute: return "compute";
    case Phase::kPush: return "push";
    case Phase::kPull: return "pull";
    case Phase::kCompress: return "compress";
    case Phase::kServerUpdate: return "server_update";
    case Phase::kServerIdle: return "server_idle";
    case Phase::kTotal: return "total";
  }
  return "unknown";
}

double monotonic_seconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

}  // namespace psbench
