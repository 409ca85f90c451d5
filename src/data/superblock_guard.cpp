#include "data/superblock_guard.hpp"

#include <array>
#include <cstdint>
#include <fstream>
#include <vector>

#include "common/error.hpp"

namespace psbench::data {
namespace {

constexpr std::array<unsigned char, 8> kSignature{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t kDriverHeaderBytes = 16;  // version, 3 reserved, info size (4), driver id (8)

// Little-endian unsigned integer of `bytes` bytes at `at`.
std::uint64_t read_le(const std::vector<unsigned char>& data, std::size_t at, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(data[at + i]) << (8 * i);
  return value;
}

// Where the superblock's signature is: offset 0, 512, 1024, 2048, ... (after a user block); npos if nowhere.
std::size_t find_signature(const std::vector<unsigned char>& data) {
  for (std::size_t at = 0; at + kSignature.size() <= data.size(); at = at == 0 ? 512 : 2 * at) {
    if (std::equal(kSignature.begin(), kSignature.end(), data.begin() + static_cast<std::ptrdiff_t>(at))) return at;
  }
  return std::string::npos;
}

}  // namespace

void refuse_oversized_driver_block(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // HDF5 names the problem
  const std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = find_signature(data);
  if (at == std::string::npos || at + 16 > data.size()) return;
  const unsigned version = data[at + 8];
  const std::size_t address_bytes = data[at + 13];
  if (version > 1 || (address_bytes != 4 && address_bytes != 8)) return;
  // Version 0: 24 bytes of fixed fields (version 1: 28), then base, free-space, end-of-file and driver addresses.
  const std::size_t addresses = at + (version == 0 ? 24 : 28);
  if (addresses + 4 * address_bytes > data.size()) return;
  const std::uint64_t undefined = address_bytes == 8 ? UINT64_MAX : UINT32_MAX;
  const std::uint64_t base = read_le(data, addresses, address_bytes);
  const std::uint64_t driver = read_le(data, addresses + 3 * address_bytes, address_bytes);
  if (driver == undefined) return;
  const std::uint64_t block = base + driver;
  if (block > data.size() || data.size() - block < kDriverHeaderBytes) return;  // HDF5 reports a truncated file
  const std::uint64_t info_bytes = read_le(data, static_cast<std::size_t>(block) + 4, 4);
  if (info_bytes > data.size() - block - kDriverHeaderBytes) {
    throw UserError("'" + path + "' is not a valid HDF5 file: its superblock's driver information block claims " +
                    std::to_string(info_bytes) + " bytes at offset " + std::to_string(block) +
                    ", past the end of the " + std::to_string(data.size()) + "-byte file");
  }
}

}  // namespace psbench::data
