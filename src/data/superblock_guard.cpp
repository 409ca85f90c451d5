#include "data/superblock_guard.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace psbench::data {
namespace {

constexpr std::array<unsigned char, 8> kSignature{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t kDriverHeaderBytes = 16;  // version, 3 reserved, info size (4), driver id (8)
constexpr std::size_t kSuperblockBytes = 64;    // a version 0/1 superblock's fixed fields and 4 addresses of 8

// Little-endian unsigned integer of `bytes` bytes at `at`.
std::uint64_t read_le(const std::vector<unsigned char>& data, std::size_t at, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(data[at + i]) << (8 * i);
  return value;
}

// Up to `bytes` bytes of the file from `at` (fewer at its end).
std::vector<unsigned char> read_at(std::ifstream& in, std::uint64_t at, std::size_t bytes) {
  std::vector<unsigned char> data(bytes);
  in.clear();
  in.seekg(static_cast<std::streamoff>(at));
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
  data.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return data;
}

// Where the superblock's signature is: offset 0, 512, 1024, 2048, ... (after a user block); npos if nowhere.
std::uint64_t find_signature(std::ifstream& in, std::uint64_t file_bytes) {
  for (std::uint64_t at = 0; at + kSignature.size() <= file_bytes; at = at == 0 ? 512 : 2 * at) {
    const std::vector<unsigned char> bytes = read_at(in, at, kSignature.size());
    if (std::equal(kSignature.begin(), kSignature.end(), bytes.begin(), bytes.end())) return at;
  }
  return std::string::npos;
}

}  // namespace

void refuse_oversized_driver_block(const std::string& path) {
  std::error_code error;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, error);
  std::ifstream in(path, std::ios::binary);
  if (error || !in) return;  // HDF5 names the problem
  const std::uint64_t at = find_signature(in, file_bytes);
  if (at == std::string::npos) return;
  const std::vector<unsigned char> data = read_at(in, at, kSuperblockBytes);
  if (data.size() < 16) return;
  const unsigned version = data[8];
  const std::size_t address_bytes = data[13];
  if (version > 1 || (address_bytes != 4 && address_bytes != 8)) return;
  // Version 0: 24 bytes of fixed fields (version 1: 28), then base, free-space, end-of-file and driver addresses.
  const std::size_t addresses = version == 0 ? 24 : 28;
  if (addresses + 4 * address_bytes > data.size()) return;
  const std::uint64_t undefined = address_bytes == 8 ? UINT64_MAX : UINT32_MAX;
  const std::uint64_t base = read_le(data, addresses, address_bytes);
  const std::uint64_t driver = read_le(data, addresses + 3 * address_bytes, address_bytes);
  if (driver == undefined) return;
  const std::uint64_t block = base + driver;
  // HDF5 1.10 reads a header cut off by the end of the file as it stands and allocates what it claims.
  if (block > file_bytes || file_bytes - block < kDriverHeaderBytes) {
    throw UserError("'" + path + "' is not a valid HDF5 file: its superblock's driver information block at offset " +
                    std::to_string(block) + " does not fit in the " + std::to_string(file_bytes) + "-byte file");
  }
  const std::vector<unsigned char> header = read_at(in, block, kDriverHeaderBytes);
  if (header.size() < kDriverHeaderBytes) return;
  const std::uint64_t info_bytes = read_le(header, 4, 4);
  if (info_bytes > file_bytes - block - kDriverHeaderBytes) {
    throw UserError("'" + path + "' is not a valid HDF5 file: its superblock's driver information block claims " +
                    std::to_string(info_bytes) + " bytes at offset " + std::to_string(block) +
                    ", past the end of the " + std::to_string(file_bytes) + "-byte file");
  }
}

}  // namespace psbench::data
