#include "perf/forked_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

// The child's header: how many numbers follow, or a failure and its message.
struct ReplyHeader {
  std::uint64_t count = 0;
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

bool read_all(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, bytes + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void run_child(int fd, const std::function<std::vector<double>()>& work) {
  ReplyHeader header;
  std::vector<double> values;
  try {
    values = work();
    header.count = values.size();
  } catch (const std::exception& error) {
    header.failed = 1;
    std::snprintf(header.error, sizeof header.error, "%s", error.what());
  }
  const bool sent =
      write_all(fd, &header, sizeof header) && write_all(fd, values.data(), values.size() * sizeof(double));
  ::_exit(sent ? 0 : 1);  // no atexit handlers, no MPI or SimGrid teardown in the child
}

}  // namespace

std::vector<double> run_forked(const std::function<std::vector<double>()>& work, const std::string& what) {
  int fds[2];
  if (::pipe(fds) != 0) throw SystemError("pipe for " + what + " failed: " + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw SystemError("fork for " + what + " failed: " + std::strerror(errno));
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], work);
  }
  ::close(fds[1]);
  ReplyHeader header;
  bool complete = read_all(fds[0], &header, sizeof header);
  std::vector<double> values(complete ? header.count : 0);
  complete = complete && read_all(fds[0], values.data(), values.size() * sizeof(double));
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw SystemError(what + " died (status " + std::to_string(status) + ")");
  if (header.failed != 0) throw UserError(what + " failed: " + header.error);
  return values;
}

}  // namespace psbench::perf
