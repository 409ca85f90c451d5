#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace psbench::compress {

/// 32-bit words of a quantized column of values entries: its two reconstruction values (lower, upper) and
/// one bit per value, padded to whole words.
constexpr std::size_t packed_words(std::size_t values) { return 2 + (values + 31) / 32; }

/// One column: a contiguous run of the flat vector that is quantized with its own two reconstruction values.
struct Column {
  std::size_t begin = 0;  ///< first value, from the layout's start
  std::size_t size = 0;   ///< values
  std::size_t word = 0;   ///< first word of its packed form, from the packed buffer's start
};

/// The columns of a flat float vector, end to end from value 0, and where each one's packed form lies in a
/// packed buffer (column after column). Sized at construction; nothing is allocated afterwards.
class ColumnLayout {
 public:
  /// Columns of the given sizes (each at least one value), laid end to end.
  explicit ColumnLayout(std::span<const std::size_t> sizes);
  /// This layout with every column that straddles a value in cuts split there (each part is a column of its
  /// own); cuts are value offsets, in any order, and 0 and values() cut nothing.
  [[nodiscard]] ColumnLayout cut_at(std::span<const std::size_t> cuts) const;
  /// Columns [first, last) as a layout of their own, rebased to value 0 and word 0.
  [[nodiscard]] ColumnLayout slice(std::size_t first, std::size_t last) const;
  /// The first column that starts at value or after it (columns() when none does).
  [[nodiscard]] std::size_t column_at(std::size_t value) const;
  /// Number of columns.
  [[nodiscard]] std::size_t columns() const { return columns_.size(); }
  /// Column i.
  [[nodiscard]] const Column& column(std::size_t i) const { return columns_[i]; }
  /// Values in all columns.
  [[nodiscard]] std::size_t values() const { return values_; }
  /// Words of the packed form of all columns.
  [[nodiscard]] std::size_t words() const { return words_; }
  /// Value offset of column i's start (values() for i == columns()).
  [[nodiscard]] std::size_t value_begin(std::size_t i) const { return i < columns() ? columns_[i].begin : values_; }
  /// Word offset of column i's packed form (words() for i == columns()).
  [[nodiscard]] std::size_t word_begin(std::size_t i) const { return i < columns() ? columns_[i].word : words_; }

 private:
  ColumnLayout() = default;
  void append(std::size_t size);
  std::vector<Column> columns_;
  std::size_t values_ = 0;
  std::size_t words_ = 0;
};

/// Splits the columns into stripes contiguous stripes of whole columns, balanced by values: stripe j is
/// columns [bounds[j], bounds[j+1]) and ends at the first column end at or past (j+1)/stripes of the values
/// (a stripe may be empty when there are fewer columns than stripes). Returns stripes + 1 column indices.
std::vector<std::size_t> stripe_bounds(const ColumnLayout& layout, int stripes);

}  // namespace psbench::compress
