#include "cli/failure_exit.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "common/error.hpp"
#include "mpi/collective_error.hpp"
#include "mpi/environment.hpp"

namespace psbench::cli {
namespace {

// When the same rank-local failure happens on every rank at once, rank 0's abort usually ends the others
// before they print, so the user sees one line instead of one per rank.
constexpr auto kNonRootReportDelay = std::chrono::milliseconds(500);

void print_line(const char* what) {
  std::fprintf(stderr, "%s\n", format_error_line(what).c_str());
  std::fflush(stderr);
}

}  // namespace

int exit_after_failure(const std::exception_ptr& failure, const mpi::Communicator& world) {
  int exit_code = kSystemErrorExitCode;
  bool collective = world.size() <= 1;
  std::string what = "unknown failure";
  try {
    std::rethrow_exception(failure);
  } catch (const mpi::CollectiveUserError& error) {
    exit_code = kUserErrorExitCode;
    collective = true;
    what = error.what();
  } catch (const UserError& error) {
    exit_code = kUserErrorExitCode;
    what = error.what();
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
  }
  if (collective) {
    if (world.rank() == 0) print_line(what.c_str());
    return exit_code;
  }
  if (world.rank() != 0) std::this_thread::sleep_for(kNonRootReportDelay);
  print_line(what.c_str());
  mpi::Environment::abort(exit_code);
}

}  // namespace psbench::cli
