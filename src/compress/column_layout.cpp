#include "compress/column_layout.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::compress {

ColumnLayout::ColumnLayout(std::span<const std::size_t> sizes) {
  columns_.reserve(sizes.size());
  for (const std::size_t size : sizes) {
    PSBENCH_CHECK(size > 0) << "a column of no values";
    append({values_, values_ + size, 1, 0});
  }
}

ColumnLayout::ColumnLayout(std::span<const Matrix> matrices) {
  for (const Matrix& matrix : matrices) {
    PSBENCH_CHECK(matrix.rows > 0 && matrix.width > 0) << "a matrix of " << matrix.rows << " x " << matrix.width;
    append({values_, values_ + matrix.rows * matrix.width, matrix.width, 0});
  }
}

// Column c of a segment holds its values in column c of the matrix, from the first one at or after first; a column
// with none is left out (a segment shorter than a row).
void ColumnLayout::append(Segment segment) {
  segments_.push_back(segment);
  for (std::size_t c = 0; c < segment.width; ++c) {
    const std::size_t begin = segment.first + c + (c < segment.phase ? segment.width : 0) - segment.phase;
    if (begin >= segment.last) continue;
    const std::size_t size = (segment.last - 1 - begin) / segment.width + 1;
    columns_.push_back({begin, size, segment.width, words_, values_});
    values_ += size;
    words_ += packed_words(size);
  }
}

ColumnLayout ColumnLayout::cut_at(std::span<const std::size_t> cuts) const {
  std::vector<std::size_t> sorted(cuts.begin(), cuts.end());
  std::ranges::sort(sorted);
  ColumnLayout out;
  auto next = sorted.begin();
  for (const Segment& segment : segments_) {
    Segment part = segment;
    for (; next != sorted.end() && *next < segment.last; ++next) {
      if (*next <= part.first) continue;
      out.append({part.first, *next, part.width, part.phase});
      part.phase = (part.phase + *next - part.first) % part.width;
      part.first = *next;
    }
    out.append(part);
  }
  return out;
}

ColumnLayout ColumnLayout::within(std::size_t first, std::size_t last) const {
  PSBENCH_CHECK(first <= last && last <= values_) << "values [" << first << ", " << last << ") of " << values_;
  ColumnLayout out;
  for (const Segment& segment : segments_) {
    if (segment.last <= first || segment.first >= last) continue;
    PSBENCH_CHECK(segment.first >= first && segment.last <= last)
        << "values [" << segment.first << ", " << segment.last << ") straddle [" << first << ", " << last << ")";
    out.append({segment.first - first, segment.last - first, segment.width, segment.phase});
  }
  return out;
}

ColumnLayout ColumnLayout::slice(std::size_t first, std::size_t last) const {
  PSBENCH_CHECK(first <= last && last <= columns()) << "columns [" << first << ", " << last << ") of " << columns();
  ColumnLayout out;
  out.columns_.reserve(last - first);
  for (std::size_t i = first; i < last; ++i) out.append({out.values_, out.values_ + columns_[i].size, 1, 0});
  return out;
}

// The columns follow the segments' order, so those of the segments before value come first.
std::size_t ColumnLayout::words_before(std::size_t value) const {
  for (const Segment& segment : segments_) {
    PSBENCH_CHECK(segment.last <= value || segment.first >= value) << "value " << value << " lies inside a column";
  }
  std::size_t words = 0;
  for (const Column& column : columns_) {
    if (column.begin >= value) break;
    words = column.word + packed_words(column.size);
  }
  return words;
}

std::vector<std::size_t> stripe_bounds(const ColumnLayout& layout, int stripes) {
  PSBENCH_CHECK(stripes > 0) << stripes << " stripes";
  std::vector<std::size_t> bounds(static_cast<std::size_t>(stripes) + 1, 0);
  std::size_t column = 0;
  for (int j = 0; j < stripes; ++j) {
    const std::size_t target = layout.values() * static_cast<std::size_t>(j + 1) / static_cast<std::size_t>(stripes);
    while (column < layout.columns() && layout.values_before(column) < target) ++column;
    bounds[static_cast<std::size_t>(j) + 1] = column;
  }
  bounds.back() = layout.columns();
  return bounds;
}

}  // namespace psbench::compress
