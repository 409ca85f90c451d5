#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace psbench::compress {

/// 32-bit words of a quantized column of values entries: its two reconstruction values (lower, upper) and
/// one bit per value, padded to whole words.
constexpr std::size_t packed_words(std::size_t values) { return 2 + (values + 31) / 32; }

/// A matrix of the flat vector as 1-bit SGD quantizes it: rows x width values, row-major (a layer's oi / oihw
/// weights: a row per output unit). Its columns are the matrix's own, one per input (per input channel x kernel
/// position for a convolution), rows values each, width apart: CNTK's column-major [out x in] weight matrix, which
/// it quantizes column by column. A vector (a bias) is a matrix of one column.
struct Matrix {
  std::size_t rows = 0;   ///< values per column
  std::size_t width = 1;  ///< columns
};

/// One column: the values it quantizes with its own two reconstruction values, and where its packed form lies.
struct Column {
  std::size_t begin = 0;   ///< first value, from the layout's start
  std::size_t size = 0;    ///< values
  std::size_t stride = 1;  ///< distance between its consecutive values (its matrix's width; 1 for a vector)
  std::size_t word = 0;    ///< first word of its packed form, from the packed buffer's start
  std::size_t offset = 0;  ///< values in the columns before it
};

/// The columns of a flat float vector made of matrices laid end to end from value 0, and where each column's packed
/// form lies in a packed buffer (column after column: a matrix's columns in order, then the next matrix's). Sized at
/// construction; nothing is allocated afterwards.
class ColumnLayout {
 public:
  /// Vectors of the given sizes (each at least one value), end to end: one column each.
  explicit ColumnLayout(std::span<const std::size_t> sizes);
  /// The given matrices (each with at least one row and one column), end to end.
  explicit ColumnLayout(std::span<const Matrix> matrices);
  /// This layout cut at each value offset of cuts (in any order; 0 and values() cut nothing): every column that
  /// straddles a cut is split there into the part before and the part after, each a column of its own, so that the
  /// values on either side of a cut are whole columns.
  [[nodiscard]] ColumnLayout cut_at(std::span<const std::size_t> cuts) const;
  /// The values in [first, last) as a layout of their own, rebased to value 0 and word 0; no column may straddle
  /// first or last (cut there first).
  [[nodiscard]] ColumnLayout within(std::size_t first, std::size_t last) const;
  /// Columns [first, last) as vectors of their own, end to end from value 0 and word 0 in column order (their values
  /// gathered into one contiguous run, with the same packed form).
  [[nodiscard]] ColumnLayout slice(std::size_t first, std::size_t last) const;
  /// Words of the packed forms of the columns before value; no column may straddle it.
  [[nodiscard]] std::size_t words_before(std::size_t value) const;
  /// Number of columns.
  [[nodiscard]] std::size_t columns() const { return columns_.size(); }
  /// Column i.
  [[nodiscard]] const Column& column(std::size_t i) const { return columns_[i]; }
  /// Values in all columns.
  [[nodiscard]] std::size_t values() const { return values_; }
  /// Words of the packed form of all columns.
  [[nodiscard]] std::size_t words() const { return words_; }
  /// Values in the columns before column i (values() for i == columns()).
  [[nodiscard]] std::size_t values_before(std::size_t i) const { return i < columns() ? columns_[i].offset : values_; }
  /// Word offset of column i's packed form (words() for i == columns()).
  [[nodiscard]] std::size_t word_begin(std::size_t i) const { return i < columns() ? columns_[i].word : words_; }

 private:
  // The values [first, last) of a row-major matrix of width columns, whose value first is in column phase.
  struct Segment {
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t width = 1;
    std::size_t phase = 0;
  };
  ColumnLayout() = default;
  void append(Segment segment);
  std::vector<Segment> segments_;
  std::vector<Column> columns_;
  std::size_t values_ = 0;
  std::size_t words_ = 0;
};

/// Splits the columns into stripes runs of whole columns, balanced by values: stripe j is columns
/// [bounds[j], bounds[j+1]) and ends at the first column end at or past (j+1)/stripes of the values (a stripe may be
/// empty when there are fewer columns than stripes). Returns stripes + 1 column indices.
std::vector<std::size_t> stripe_bounds(const ColumnLayout& layout, int stripes);

}  // namespace psbench::compress
