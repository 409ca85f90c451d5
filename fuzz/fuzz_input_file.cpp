#include "fuzz_input_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace psbench::fuzz {

FuzzInputFile::FuzzInputFile(const std::uint8_t* data, std::size_t size, const char* suffix)
    : path_("/dev/shm/psbench-fuzz-" + std::to_string(getpid()) + suffix) {
  std::FILE* file = std::fopen(path_.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
}

FuzzInputFile::~FuzzInputFile() { std::remove(path_.c_str()); }

}  // namespace psbench::fuzz
