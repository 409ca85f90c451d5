#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/data_command.hpp"
#include "cli/failure_exit.hpp"
#include "cli/model_command.hpp"
#include "cli/report_command.hpp"
#include "cli/train_command.hpp"
#include "cli/version.hpp"
#include "common/error.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/environment.hpp"

int main(int argc, char** argv) {
  psbench::mpi::Environment environment(argc, argv);
  auto& world = environment.world();
  CLI::App app{"psbench: a distributed ASGD trainer and benchmark over MPI, HDF5 and oneDNN"};
  app.name("psbench");
  app.set_version_flag("--version", psbench::cli::version_text());
  app.require_subcommand(1);
  psbench::cli::add_train_command(app);
  psbench::cli::add_data_command(app);
  psbench::cli::add_model_command(app);
  psbench::cli::add_report_command(app);
  try {
    psbench::mpi::configure_waits(world);
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& done) {  // --help and --version end here too
      return world.rank() == 0 ? app.exit(done) : 0;
    } catch (const CLI::ParseError& error) {
      if (world.rank() == 0) {
        std::fprintf(stderr, "%s (see 'psbench --help')\n", psbench::format_error_line(error.what()).c_str());
      }
      return psbench::kUserErrorExitCode;
    }
  } catch (...) {
    return psbench::cli::exit_after_failure(std::current_exception(), world);
  }
  return 0;
}
