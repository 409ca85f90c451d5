#pragma once

// 1-bit SGD written out from its definition, for the MPI tests to check the exchanges against: no code of
// src/compress, plain loops over explicit index lists, sums in value order. A column of a rows x width matrix laid
// row-major (a row per output unit) holds the values r x width + c of its column c, rows in order (CNTK's columns:
// one per input); a cut splits every column into its values before it and after it.

#include <cstddef>
#include <utility>
#include <vector>

namespace psbench::reference {

/// A column: the flat indices of its values, in order.
using IndexColumn = std::vector<std::size_t>;

/// The columns of rows x width matrices (pairs) laid end to end, each column cut at every offset of cuts.
inline std::vector<IndexColumn> onebit_columns(const std::vector<std::pair<std::size_t, std::size_t>>& matrices,
                                               const std::vector<std::size_t>& cuts = {}) {
  std::vector<IndexColumn> columns;
  std::size_t base = 0;
  for (const auto& [rows, width] : matrices) {
    for (std::size_t c = 0; c < width; ++c) {
      IndexColumn column;
      for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t index = base + r * width + c;
        bool cut = false;
        for (const std::size_t at : cuts) cut = cut || (!column.empty() && column.back() < at && index >= at);
        if (cut) {
          columns.push_back(column);
          column.clear();
        }
        column.push_back(index);
      }
      columns.push_back(column);
    }
    base += rows * width;
  }
  return columns;
}

/// Quantizes x = gradient + residual column by column (residual empty: x = gradient) and returns the
/// reconstruction: the mean of a column's negative entries where x < 0, of its other entries elsewhere; the residual
/// becomes x - reconstruction.
inline std::vector<float> onebit_reconstruction(const std::vector<IndexColumn>& columns,
                                                const std::vector<float>& gradient, std::vector<float>& residual) {
  std::vector<float> out(gradient.size());
  for (const IndexColumn& column : columns) {
    float negative = 0.0F;
    float positive = 0.0F;
    std::size_t negatives = 0;
    for (const std::size_t i : column) {
      const float x = gradient[i] + (residual.empty() ? 0.0F : residual[i]);
      if (x < 0.0F) {
        negative += x;
        ++negatives;
      } else {
        positive += x;
      }
    }
    const float lower = negatives > 0 ? negative / static_cast<float>(negatives) : 0.0F;
    const float upper = negatives < column.size() ? positive / static_cast<float>(column.size() - negatives) : 0.0F;
    for (const std::size_t i : column) {
      const float x = gradient[i] + (residual.empty() ? 0.0F : residual[i]);
      out[i] = x < 0.0F ? lower : upper;
      if (!residual.empty()) residual[i] = x - out[i];
    }
  }
  return out;
}

}  // namespace psbench::reference
