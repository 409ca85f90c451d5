#include "perf/simulation.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "common/error.hpp"
#include "perf/closed_forms.hpp"
#include "perf/sim_run.hpp"

namespace psbench::perf {
namespace {

// What the child sends back: the measures, or a failure message.
struct ChildReply {
  SimMeasures measures;
  int failed = 0;
  char error[512] = {};
};

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

std::size_t read_all(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, bytes + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

[[noreturn]] void run_child(int fd, const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  ChildReply reply;
  try {
    reply.measures = run_simulation(costs, scenario, options);
  } catch (const std::exception& error) {
    reply.failed = 1;
    std::snprintf(reply.error, sizeof reply.error, "%s", error.what());
  }
  const bool sent = write_all(fd, &reply, sizeof reply);
  ::_exit(sent ? 0 : 1);  // no atexit handlers, no MPI or SimGrid teardown in the child
}

SimMeasures run_in_child(const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  int fds[2];
  if (::pipe(fds) != 0) throw SystemError(std::string("pipe for the simulation failed: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw SystemError(std::string("fork for the simulation failed: ") + std::strerror(errno));
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], costs, scenario, options);
  }
  ::close(fds[1]);
  ChildReply reply;
  const std::size_t got = read_all(fds[0], &reply, sizeof reply);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof reply || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw SystemError("the SimGrid simulation of " + std::to_string(costs.workers) + " workers died (status " +
                      std::to_string(status) + ")");
  if (reply.failed != 0) throw UserError(std::string("simulation failed: ") + reply.error);
  return reply.measures;
}

}  // namespace

Prediction simulate(const StepCosts& costs, const Scenario& scenario, const SimOptions& options) {
  const SimMeasures m = run_in_child(costs, scenario, options);
  Prediction p;
  p.kind = Kind::kSim;
  p.workers = costs.workers;
  p.servers = costs.servers;
  p.init_io_s = m.init_io_s;
  p.compute_s = m.compute_s;
  p.total_s = costs.setup_s + m.init_io_s + m.compute_s;
  p.updates_per_s = m.compute_s > 0.0 ? m.updates / m.compute_s : 0.0;
  p.samples_per_s = m.compute_s > 0.0 ? costs.training_samples / m.compute_s : 0.0;
  p.server_utilization = m.compute_s > 0.0 ? m.server_busy_s / (m.compute_s * costs.servers) : 0.0;
  p.staleness_mean = m.shard_updates > 0.0 ? m.staleness_sum / m.shard_updates : 0.0;
  const double demand = costs.server_demand_s();
  if (demand > 0.0) p.knee_workers = (costs.compute_s + costs.exchange_s + costs.service_s) / demand;
  return p;
}

}  // namespace psbench::perf
