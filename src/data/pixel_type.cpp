#include "data/pixel_type.hpp"

#include "common/error.hpp"

namespace psbench::data {

std::string_view pixel_type_name(PixelType type) { return type == PixelType::kUint8 ? "uint8" : "float32"; }

PixelType parse_pixel_type(const std::string& text, const std::string& flag) {
  if (text == "uint8") return PixelType::kUint8;
  if (text == "float32") return PixelType::kFloat32;
  throw UserError(flag + " '" + text + "' is not a stored type: use uint8 or float32");
}

std::size_t pixel_bytes(PixelType type) { return type == PixelType::kUint8 ? 1 : 4; }

}  // namespace psbench::data
