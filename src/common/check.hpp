#pragma once

#include <sstream>
#include <string>

namespace psbench {

/// Called when an invariant breaks: prints the message, then ends the whole job (never returns).
using FatalHandler = void (*)(const std::string& message);

/// Installs the handler run by a failed PSBENCH_CHECK (the MPI layer installs one that calls MPI_Abort).
void set_fatal_handler(FatalHandler handler);

/// Installs a prefix (such as "rank 3") put in front of every check failure.
void set_check_prefix(const std::string& prefix);

/// Reports a broken invariant with its location and ends the job.
[[noreturn]] void check_failed(const char* file, int line, const char* expression, const std::string& detail);

namespace detail {
/// Collects the streamed detail of a failed check; the destructor never returns.
class CheckMessage {
 public:
  /// Starts a message for a check that failed at file:line.
  CheckMessage(const char* file, int line, const char* expression)
      : file_(file), line_(line), expression_(expression) {}
  CheckMessage(const CheckMessage&) = delete;
  CheckMessage& operator=(const CheckMessage&) = delete;
  /// Ends the job with the collected detail.
  [[noreturn]] ~CheckMessage() { check_failed(file_, line_, expression_, stream_.str()); }
  /// The stream callers append detail to.
  std::ostringstream& stream() { return stream_; }

 private:
  const char* file_;
  int line_;
  const char* expression_;
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace psbench

/// Checks an invariant; on failure prints rank, file, line and the streamed detail, then aborts the job.
#define PSBENCH_CHECK(condition) \
  if (condition) {               \
  } else                         \
    ::psbench::detail::CheckMessage(__FILE__, __LINE__, #condition).stream()
