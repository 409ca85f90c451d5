#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "train/run_summary.hpp"

namespace psbench::train {

/// True when standard output reaches a terminal; under Open MPI's mpirun (which gives every rank a
/// pseudo-terminal of its own) it asks whether mpirun's own standard output is a terminal.
bool stdout_is_terminal();

/// Rank 0's console: one line per epoch, a live progress line on a terminal, a phase table at the end.
/// A disabled console (other ranks, or --quiet) prints nothing.
class Console {
 public:
  /// A console that prints when enabled; the live line only when also on a terminal.
  Console(bool enabled, bool live);
  /// Prints a line of text.
  void line(const std::string& text);
  /// Redraws the live progress line (at most a few times per second).
  void progress(std::uint32_t epoch, std::uint32_t epochs, std::size_t step, std::size_t steps, double loss);
  /// Prints the line of a finished epoch.
  void epoch_line(const EpochRecord& record, std::uint32_t epochs);
  /// Prints the phase table (max seconds over ranks and share of total) and the test accuracy.
  void summary(const PhaseSeconds& phases, const Evaluation& evaluation);

 private:
  void clear_progress();

  bool enabled_;
  bool live_;
  bool progress_shown_ = false;
  double last_progress_ = 0.0;
};

}  // namespace psbench::train
