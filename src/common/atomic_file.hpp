#pragma once

#include <string>

namespace psbench {

/// Writes contents to path through a temporary file in the same folder and a rename, so readers never
/// see a partial file; creates missing parent folders. Throws UserError if the folder cannot be written.
void write_file_atomically(const std::string& path, const std::string& contents);

/// Returns "<path>.tmp.<pid>": a private temporary name beside path for a later atomic rename.
std::string temporary_path_for(const std::string& path);

}  // namespace psbench
