#include "data/idx_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace psbench::data {
namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
constexpr unsigned kPiece = 1U << 20;
constexpr std::uint64_t kMaxItems = std::uint64_t{1} << 40;  // a larger header is corrupt, not a dataset

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw UserError("'" + path + "': " + problem);
}

// Owns a zlib file handle.
class GzipFile {
 public:
  explicit GzipFile(const std::string& path) : path_(path) {
    if (!std::filesystem::exists(path)) fail(path, "no such file");
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) fail(path, std::string("cannot open: ") + std::strerror(errno));
    gzbuffer(file_, kPiece);
  }
  GzipFile(const GzipFile&) = delete;
  GzipFile& operator=(const GzipFile&) = delete;
  ~GzipFile() { gzclose(file_); }

  // Reads up to size bytes; fewer only at the end of the stream. Fails on a corrupt or truncated stream.
  std::size_t read(std::uint8_t* out, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      const auto piece = static_cast<unsigned>(std::min<std::size_t>(size - done, kPiece));
      const int got = gzread(file_, out + done, piece);
      if (got < 0) fail_stream();
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    if (done < size) fail_stream_if_bad();
    return done;
  }

 private:
  void fail_stream_if_bad() {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END) {
      fail(path_,
           std::string("truncated or corrupt gzip stream (") + (message != nullptr ? message : "zlib error") + ")");
    }
  }
  [[noreturn]] void fail_stream() {
    fail_stream_if_bad();
    fail(path_, "read failed: " + std::string(std::strerror(errno)));
  }

  std::string path_;
  gzFile file_ = nullptr;
};

std::string hex_byte(std::uint8_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[value >> 4] + kDigits[value & 0xF];
}

}  // namespace

IdxArray read_idx(const std::string& path, int expected_rank) {
  GzipFile file(path);
  std::uint8_t magic[4] = {};
  if (file.read(magic, 4) < 4) fail(path, "truncated IDX file: no complete header");
  if (magic[0] != 0 || magic[1] != 0) {
    fail(path,
         "bad IDX magic number (starts " + hex_byte(magic[0]) + " " + hex_byte(magic[1]) + ", expected 0x00 0x00)");
  }
  if (magic[2] != kUnsignedByteType) {
    fail(path, "IDX element type " + hex_byte(magic[2]) + " is not supported (expected 0x08, unsigned byte)");
  }
  if (magic[3] != expected_rank) {
    fail(path, "IDX file has " + std::to_string(magic[3]) + " dimensions, expected " + std::to_string(expected_rank));
  }
  IdxArray array;
  std::uint64_t items = 1;
  for (int d = 0; d < expected_rank; ++d) {
    std::uint8_t bytes[4] = {};
    if (file.read(bytes, 4) < 4) fail(path, "truncated IDX file: header ends inside the dimensions");
    const std::uint32_t dim = (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
                              (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
    array.dims.push_back(dim);
    items *= dim;
    if (items > kMaxItems) fail(path, "IDX header promises more than 2^40 items: the file is corrupt");
  }
  // Grows as data arrives, so a corrupt header cannot make us allocate what the file does not hold.
  while (array.items.size() < items) {
    const std::size_t old_size = array.items.size();
    const std::size_t piece = std::min<std::uint64_t>(items - old_size, std::uint64_t{64} << 20);
    array.items.resize(old_size + piece);
    const std::size_t got = file.read(array.items.data() + old_size, piece);
    if (got < piece) {
      fail(path, "truncated IDX file: the header promises " + std::to_string(items) + " items, the file holds " +
                     std::to_string(old_size + got));
    }
  }
  std::uint8_t extra = 0;
  if (file.read(&extra, 1) != 0) fail(path, "IDX file has bytes after its " + std::to_string(items) + " items");
  return array;
}

}  // namespace psbench::data
