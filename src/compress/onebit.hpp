#pragma once

#include <cstdint>
#include <span>

#include "compress/column_layout.hpp"

namespace psbench::compress {

/// The two reconstruction values of a quantized column: the means of its negative entries (lower) and of its
/// non-negative entries (upper); a side without entries has 0.
struct Reconstruction {
  float lower = 0.0F;  ///< what bit 0 dequantizes to
  float upper = 0.0F;  ///< what bit 1 dequantizes to
};

/// CNTK's 1-bit quantization, per column of layout: x = values + residual (values alone when residual is
/// empty: no error feedback); bit i of a column is 1 where x_i >= 0 (or is NaN) and 0 where x_i < 0; the column's
/// packed form is lower, upper (their float bits), then the bits, value i at bit i % 32 of word i / 32; and the
/// residual becomes x - reconstruction, element by element. values and residual hold layout.values() floats,
/// packed layout.words() words. Allocates nothing.
void quantize_onebit(const ColumnLayout& layout, std::span<const float> values, std::span<float> residual,
                     std::span<std::uint32_t> packed);

/// Writes the reconstruction of every value of layout's packed form into out (layout.values() floats).
void dequantize_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out);

/// Adds the reconstruction of every value of layout's packed form to out (layout.values() floats).
void dequantize_add_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out);

/// The reconstruction values of column i of layout's packed form.
Reconstruction reconstruction_of(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::size_t i);

}  // namespace psbench::compress
