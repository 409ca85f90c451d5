#pragma once

#include <string>

#include "train/train_options.hpp"

namespace psbench::train {

/// Throws UserError unless path (given by flag) can be written as a file: it is not a folder, its folder
/// exists or can be made (as the writer would), and a file can be created there (a probe, removed at once).
void check_writable_file(const std::string& path, const std::string& flag);

/// Throws UserError unless path (given by flag) is a file that can be opened for reading.
void check_readable_file(const std::string& path, const std::string& flag);

/// Checks every path of options before training starts: --out, and --trace and --checkpoint when set, can
/// be written; --resume, when set, can be read.
void check_output_paths(const TrainOptions& options);

}  // namespace psbench::train
