#include "train/console.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace psbench::train {
namespace {

constexpr double kProgressInterval = 0.25;

bool is_terminal_path(const std::string& path) { return path.starts_with("/dev/pts/") || path.starts_with("/dev/tty"); }

}  // namespace

bool stdout_is_terminal() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return ::isatty(STDOUT_FILENO) != 0;
  const std::string link = "/proc/" + std::to_string(static_cast<long>(::getppid())) + "/fd/1";
  char target[512] = {};
  const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
  if (length <= 0) return false;
  return is_terminal_path(std::string(target, static_cast<std::size_t>(length)));
}

Console::Console(bool enabled, bool live) : enabled_(enabled), live_(enabled && live) {}

void Console::line(const std::string& text) {
  if (!enabled_) return;
  clear_progress();
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void Console::progress(std::uint32_t epoch, std::uint32_t epochs, std::size_t step, std::size_t steps, double loss) {
  if (!live_) return;
  const double now = monotonic_seconds();
  if (now - last_progress_ < kProgressInterval && step + 1 != steps) return;
  last_progress_ = now;
  std::printf("\r  epoch %u/%u  step %zu/%zu  loss %.4f   ", epoch + 1, epochs, step + 1, steps, loss);
  std::fflush(stdout);
  progress_shown_ = true;
}

void Console::epoch_line(const EpochRecord& record, std::uint32_t epochs) {
  if (!enabled_) return;
  char text[256];
  int used = std::snprintf(text, sizeof text, "epoch %u/%u  %10.1f samples/s  loss %.4f", record.epoch + 1, epochs,
                           record.samples_per_s, record.mean_loss);
  if (record.utilization) {
    used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used), "  server util %5.1f%%",
                          *record.utilization * 100.0);
  }
  if (record.test_accuracy) {
    used += std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used), "  test acc %5.2f%%",
                          *record.test_accuracy * 100.0);
  }
  std::snprintf(text + used, sizeof text - static_cast<std::size_t>(used), "  (%.2f s)", record.seconds);
  line(text);
}

void Console::summary(const PhaseSeconds& phases, const Evaluation& evaluation) {
  if (!enabled_) return;
  const double total = phases[static_cast<std::size_t>(Phase::kTotal)];
  line("phase            max s    share");
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const double share = total > 0.0 ? phases[p] / total * 100.0 : 0.0;
    char text[128];
    std::snprintf(text, sizeof text, "%-14s %9.3f  %6.1f%%", std::string(phase_name(static_cast<Phase>(p))).c_str(),
                  phases[p], share);
    line(text);
  }
  char text[128];
  std::snprintf(text, sizeof text, "test accuracy: %.2f%% (%lld samples, loss %.4f)", evaluation.accuracy * 100.0,
                static_cast<long long>(evaluation.samples), evaluation.mean_loss);
  line(text);
}

void Console::clear_progress() {
  if (!progress_shown_) return;
  std::printf("\r%-72s\r", "");
  progress_shown_ = false;
}

}  // namespace psbench::train
