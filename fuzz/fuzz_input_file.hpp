#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace psbench::fuzz {

/// A file in /dev/shm holding one fuzz input, for parsers that read from a path; removed on destruction.
class FuzzInputFile {
 public:
  /// Writes size bytes of data to a file named after this process and suffix.
  FuzzInputFile(const std::uint8_t* data, std::size_t size, const char* suffix);
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;
  /// Removes the file.
  ~FuzzInputFile();
  /// The file's path.
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace psbench::fuzz
