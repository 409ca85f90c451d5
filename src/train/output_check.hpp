#pragma once

#include <string>

#include "train/train_options.hpp"

namespace psbench::train {

/// Throws UserError unless path (given by flag) can be written as a file: it is not a folder, and its
/// nearest existing ancestor is a folder this process may create files in (the writer makes the rest).
void check_writable_file(const std::string& path, const std::string& flag);

/// Checks every output path of options (--out, and --trace when set) before training starts.
void check_output_paths(const TrainOptions& options);

}  // namespace psbench::train
