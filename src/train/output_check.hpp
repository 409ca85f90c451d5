#pragma once

#include <string>

#include "train/train_options.hpp"

namespace psbench::train {

/// Throws UserError unless path (given by flag) can be written as a file: it is not a folder, its folder
/// exists or can be made (as the writer would), and a file can be created there (a probe, removed at once).
void check_writable_file(const std::string& path, const std::string& flag);

/// Checks every output path of options (--out, and --trace when set) before training starts.
void check_output_paths(const TrainOptions& options);

}  // namespace psbench::train
