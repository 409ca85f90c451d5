#include "cli/report_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "mpi/collective_error.hpp"
#include "mpi/communicator.hpp"

extern char** environ;

namespace psbench::cli {
namespace {

namespace fs = std::filesystem;

struct ReportFlags {
  std::string sweep;
  std::string bench;
  std::string calib;
  std::string learners;
  std::string communication;
  std::string rack;
  std::string platform;
  std::string out;
};

bool holds_module(const fs::path& folder) {
  std::error_code ignored;
  return fs::is_regular_file(folder / "psbench_report" / "__main__.py", ignored);
}

fs::path own_executable() {
  std::error_code error;
  const auto path = fs::read_symlink("/proc/self/exe", error);
  if (error) throw SystemError("cannot find psbench's own path (/proc/self/exe): " + error.message());
  return path;
}

// The folder that holds psbench_report: $PSBENCH_REPORT_PATH, else beside an installed psbench
// (PREFIX/bin/psbench -> PREFIX/share/psbench/python), else the source tree this build came from.
fs::path module_folder() {
  if (const char* chosen = std::getenv("PSBENCH_REPORT_PATH"); chosen != nullptr && *chosen != '\0') {
    if (!holds_module(chosen)) {
      throw UserError("PSBENCH_REPORT_PATH '" + std::string(chosen) + "' holds no psbench_report/__main__.py");
    }
    return chosen;
  }
  const auto installed = own_executable().parent_path().parent_path() / "share" / "psbench" / "python";
  if (holds_module(installed)) return installed;
  const fs::path source = PSBENCH_REPORT_SOURCE_DIR;
  if (holds_module(source)) return source;
  throw UserError("cannot find the report module psbench_report (looked in '" + installed.string() + "' and '" +
                  source.string() + "'): reinstall psbench or set PSBENCH_REPORT_PATH");
}

std::string python_interpreter() {
  if (const char* chosen = std::getenv("PSBENCH_PYTHON"); chosen != nullptr && *chosen != '\0') return chosen;
  return PSBENCH_REPORT_PYTHON;
}

// The command as the user would retype it, printed in report.md as the way to regenerate it.
std::string typed_command(const ReportFlags& flags) {
  std::string command = "psbench report " + flags.sweep;
  if (!flags.bench.empty()) command += " --bench " + flags.bench;
  if (!flags.calib.empty()) command += " --calib " + flags.calib;
  if (!flags.learners.empty()) command += " --learners " + flags.learners;
  if (!flags.communication.empty()) command += " --communication " + flags.communication;
  if (!flags.rack.empty()) command += " --rack " + flags.rack;
  if (!flags.platform.empty()) command += " --platform " + flags.platform;
  return command + " --out " + flags.out;
}

std::vector<std::string> module_arguments(const ReportFlags& flags, int error_fd) {
  std::vector<std::string> args{python_interpreter(), "-m", "psbench_report", flags.sweep, "--out", flags.out};
  if (!flags.bench.empty()) args.insert(args.end(), {"--bench", flags.bench});
  if (!flags.calib.empty()) args.insert(args.end(), {"--calib", flags.calib});
  if (!flags.learners.empty()) args.insert(args.end(), {"--learners", flags.learners});
  if (!flags.communication.empty()) args.insert(args.end(), {"--communication", flags.communication});
  if (!flags.rack.empty()) args.insert(args.end(), {"--rack", flags.rack});
  if (!flags.platform.empty()) args.insert(args.end(), {"--platform", flags.platform});
  args.insert(args.end(), {"--psbench", own_executable().string(), "--command", typed_command(flags), "--error-fd",
                           std::to_string(error_fd)});
  return args;
}

// The environment of the module: ours, with PYTHONPATH starting at the module folder, and no bytecode
// written into the source or installed tree.
std::vector<std::string> module_environment(const fs::path& folder) {
  std::vector<std::string> entries;
  std::string python_path = "PYTHONPATH=" + folder.string();
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (text.rfind("PYTHONPATH=", 0) == 0) {
      if (text.size() > 11) python_path += ":" + text.substr(11);
    } else if (text.rfind("PYTHONDONTWRITEBYTECODE=", 0) != 0) {
      entries.push_back(text);
    }
  }
  entries.push_back(python_path);
  entries.emplace_back("PYTHONDONTWRITEBYTECODE=1");
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> result;
  for (auto& text : texts) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const auto count = ::read(fd, buffer, sizeof buffer);
    if (count > 0) {
      text.append(buffer, static_cast<std::size_t>(count));
    } else if (count == 0 || errno != EINTR) {
      return text;
    }
  }
}

int wait_for(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw SystemError(std::string("waitpid for the report module: ") + std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs the module; its bad-input message comes back through a pipe and becomes our one error line.
void run_module(const ReportFlags& flags) {
  const auto folder = module_folder();
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw SystemError(std::string("pipe: ") + std::strerror(errno));
  auto args = module_arguments(flags, pipe_fds[1]);
  auto environment = module_environment(folder);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t child = 0;
  const int spawned =
      ::posix_spawnp(&child, args[0].c_str(), &actions, nullptr, pointers(args).data(), pointers(environment).data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw UserError("cannot run the report's Python '" + args[0] + "' (" + std::strerror(spawned) +
                    "): install python3-matplotlib or set PSBENCH_PYTHON");
  }
  const auto message = read_all(pipe_fds[0]);
  ::close(pipe_fds[0]);
  const int code = wait_for(child);
  if (code == kUserErrorExitCode && !message.empty()) throw UserError(message);
  if (code != 0)
    throw SystemError("the report module (" + args[0] + " -m psbench_report) exited with code " + std::to_string(code));
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* command = app.add_subcommand(
      "report",
      "Figures and answers to RQ1-RQ5 from a sweep, the benchmarks, the model and learner runs (report.md, PNG, SVG)");
  command->add_option("SWEEP_DIR", flags->sweep, "folder of results files (and the job's manifest.json)")->required();
  command->add_option("--bench", flags->bench, "folder of benchmark files (results/bench)");
  command->add_option("--calib", flags->calib, "calibration file for `psbench model predict`");
  command->add_option("--learners", flags->learners,
                      "folder of learner runs with --eval-every curves: figure 9 and the time-to-target table");
  command->add_option("--communication", flags->communication,
                      "folder of runs of CNTK's learners (sync and async with and without --compress onebit, bmuf, "
                      "average) with --eval-every curves: figure 11 and the communication table");
  command->add_option(
      "--rack", flags->rack,
      "folder of a rack sweep (docs/results/measure.sh rack): figure 12, and RQ1 and RQ3 answer from it");
  command->add_option("--platform", flags->platform,
                      "platform of the scale study and the plan, figures 7 and 10 (default: bluewaters)");
  command->add_option("--out", flags->out, "folder for report.md and the figures")->required();
  command->callback([flags] {
    const auto world = mpi::Communicator::world();
    mpi::run_collectively(world, [&] {
      if (world.rank() == 0) run_module(*flags);
    });
  });
}

}  // namespace psbench::cli
