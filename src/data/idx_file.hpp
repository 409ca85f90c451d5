#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace psbench::data {

/// An IDX array of unsigned bytes (the MNIST file format): its dimensions and items, row-major.
struct IdxArray {
  std::vector<std::uint32_t> dims;  ///< e.g. {60000, 28, 28} for images, {60000} for labels
  std::vector<std::uint8_t> items;  ///< product(dims) bytes
};

/// Reads a gzip-compressed (or plain) IDX file of unsigned bytes with expected_rank dimensions. Throws
/// UserError naming the file and the problem: cannot open, bad magic number, wrong element type or rank,
/// truncated or corrupt gzip stream, fewer items than the header promises, or bytes after the last item.
IdxArray read_idx(const std::string& path, int expected_rank);

}  // namespace psbench::data
