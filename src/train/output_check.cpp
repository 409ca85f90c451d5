#include "train/output_check.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace psbench::train {

void check_writable_file(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path target = fs::absolute(path, error);
  if (fs::is_directory(target, error)) {
    throw UserError(flag + " '" + path + "' is a folder: name a file, e.g. " +
                    (fs::path(path) / "results.json").string());
  }
  fs::path folder = target.parent_path();
  while (!fs::exists(folder, error) && folder.has_parent_path() && folder != folder.parent_path()) {
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder, error)) {
    throw UserError(flag + " '" + path + "' cannot be written: '" + folder.string() + "' is not a folder");
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw UserError(flag + " '" + path + "' cannot be written: folder '" + folder.string() +
                    "': " + std::strerror(errno));
  }
}

void check_output_paths(const TrainOptions& options) {
  if (!options.out_path.empty()) check_writable_file(options.out_path, "--out");
  if (!options.trace_path.empty()) check_writable_file(options.trace_path, "--trace");
}

}  // namespace psbench::train
