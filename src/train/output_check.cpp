#include "train/output_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace psbench::train {

void check_writable_file(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path target = fs::absolute(path, error);
  if (fs::is_directory(target, error)) {
    const char* example = flag == "--checkpoint" ? "checkpoint.h5" : flag == "--trace" ? "trace.json" : "results.json";
    throw UserError(flag + " '" + path + "' is a folder: name a file, e.g. " + (fs::path(path) / example).string());
  }
  // The writer creates missing folders too; a probe file then proves that files can be made there.
  const fs::path folder = target.parent_path();
  fs::create_directories(folder, error);
  if (!fs::is_directory(folder, error)) {
    throw UserError(flag + " '" + path + "' cannot be written: cannot make folder '" + folder.string() + "'" +
                    (error ? ": " + error.message() : ""));
  }
  const std::string probe = temporary_path_for(target.string()) + ".probe";
  const int descriptor = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (descriptor < 0) {
    throw UserError(flag + " '" + path + "' cannot be written: " + std::strerror(errno));
  }
  ::close(descriptor);
  ::unlink(probe.c_str());
}

void check_readable_file(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(path, error)) throw UserError(flag + " '" + path + "': no such file");
  if (fs::is_directory(path, error)) throw UserError(flag + " '" + path + "' is a folder, not a file");
  const int descriptor = ::open(path.c_str(), O_RDONLY);
  if (descriptor < 0) throw UserError(flag + " '" + path + "' cannot be read: " + std::strerror(errno));
  ::close(descriptor);
}

void check_output_paths(const TrainOptions& options) {
  if (!options.out_path.empty()) check_writable_file(options.out_path, "--out");
  if (!options.trace_path.empty()) check_writable_file(options.trace_path, "--trace");
  if (!options.checkpoint_path.empty()) check_writable_file(options.checkpoint_path, "--checkpoint");
  if (!options.resume_path.empty()) check_readable_file(options.resume_path, "--resume");
}

}  // namespace psbench::train
