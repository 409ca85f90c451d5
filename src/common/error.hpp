#pragma once

#include <stdexcept>
#include <string>

namespace psbench {

/// Bad input from a user (flag, file, shape): printed once as "psbench: error: ..." with exit code 2.
class UserError : public std::runtime_error {
 public:
  /// Wraps a message that names the offending thing and, where possible, the fix.
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

/// A failure reported by an external library (MPI, HDF5, oneDNN, the OS) with the call that failed.
class SystemError : public std::runtime_error {
 public:
  /// Wraps a message that names the failing call and its status.
  explicit SystemError(const std::string& message) : std::runtime_error(message) {}
};

/// Exit code for bad user input (docs/running.md).
inline constexpr int kUserErrorExitCode = 2;
/// Exit code for library or system failures.
inline constexpr int kSystemErrorExitCode = 3;

/// Formats the one-line error message printed for any failure: "psbench: error: <what>".
std::string format_error_line(const std::string& what);

}  // namespace psbench
