#include "data/page_cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/error.hpp"

namespace psbench::data {
namespace {

// Owns a file descriptor opened read-only.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw UserError("'" + path + "': cannot open: " + std::strerror(errno));
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile() { ::close(fd_); }
  [[nodiscard]] int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void drop_cached_pages(const std::string& path) {
  const ReadOnlyFile file(path);
  // Dirty pages cannot be dropped; flushing first makes them clean (a no-op for an already synced file).
  ::fdatasync(file.fd());
  const int status = ::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);
  if (status != 0) throw SystemError("posix_fadvise(DONTNEED) on '" + path + "' failed: " + std::strerror(status));
}

double cached_fraction(const std::string& path) {
  const ReadOnlyFile file(path);
  struct stat info {};
  if (::fstat(file.fd(), &info) != 0) throw SystemError("fstat on '" + path + "' failed: " + std::strerror(errno));
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) return 0.0;
  void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, file.fd(), 0);
  if (mapping == MAP_FAILED) throw SystemError("mmap of '" + path + "' failed: " + std::strerror(errno));
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  const int status = ::mincore(mapping, size, resident.data());
  const int saved_errno = errno;
  ::munmap(mapping, size);
  if (status != 0) throw SystemError("mincore on '" + path + "' failed: " + std::strerror(saved_errno));
  std::size_t cached = 0;
  for (const unsigned char flag : resident) cached += flag & 1U;
  return static_cast<double>(cached) / static_cast<double>(resident.size());
}

}  // namespace psbench::data
