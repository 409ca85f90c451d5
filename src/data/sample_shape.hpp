#pragma once

#include <cstddef>

namespace psbench::data {

/// Shape of one sample (channels x height x width).
struct SampleShape {
  int channels = 0;  ///< C
  int height = 0;    ///< H
  int width = 0;     ///< W
  /// Values per sample, C*H*W.
  [[nodiscard]] std::size_t values() const {
    return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
  }
};

}  // namespace psbench::data
