#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace psbench::data {

/// How a file stores its images.
enum class PixelType { kUint8, kFloat32 };

/// "uint8" or "float32".
std::string_view pixel_type_name(PixelType type);
/// Parses "uint8" or "float32"; throws UserError naming flag otherwise.
PixelType parse_pixel_type(const std::string& text, const std::string& flag);
/// Bytes of one stored pixel.
std::size_t pixel_bytes(PixelType type);

}  // namespace psbench::data
