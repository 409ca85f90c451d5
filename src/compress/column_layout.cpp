#include "compress/column_layout.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace psbench::compress {

ColumnLayout::ColumnLayout(std::span<const std::size_t> sizes) {
  columns_.reserve(sizes.size());
  for (const std::size_t size : sizes) {
    PSBENCH_CHECK(size > 0) << "a column of no values";
    append(size);
  }
}

void ColumnLayout::append(std::size_t size) {
  columns_.push_back({values_, size, words_});
  values_ += size;
  words_ += packed_words(size);
}

ColumnLayout ColumnLayout::cut_at(std::span<const std::size_t> cuts) const {
  std::vector<std::size_t> sorted(cuts.begin(), cuts.end());
  std::ranges::sort(sorted);
  ColumnLayout out;
  auto next = sorted.begin();
  for (const Column& column : columns_) {
    std::size_t begin = column.begin;
    const std::size_t end = column.begin + column.size;
    for (; next != sorted.end() && *next < end; ++next) {
      if (*next <= begin) continue;
      out.append(*next - begin);
      begin = *next;
    }
    out.append(end - begin);
  }
  return out;
}

ColumnLayout ColumnLayout::slice(std::size_t first, std::size_t last) const {
  PSBENCH_CHECK(first <= last && last <= columns()) << "columns [" << first << ", " << last << ") of " << columns();
  ColumnLayout out;
  out.columns_.reserve(last - first);
  for (std::size_t i = first; i < last; ++i) out.append(columns_[i].size);
  return out;
}

std::size_t ColumnLayout::column_at(std::size_t value) const {
  const auto found =
      std::ranges::lower_bound(columns_, value, std::less<>{}, [](const Column& column) { return column.begin; });
  return static_cast<std::size_t>(found - columns_.begin());
}

std::vector<std::size_t> stripe_bounds(const ColumnLayout& layout, int stripes) {
  PSBENCH_CHECK(stripes > 0) << stripes << " stripes";
  std::vector<std::size_t> bounds(static_cast<std::size_t>(stripes) + 1, 0);
  std::size_t column = 0;
  for (int j = 0; j < stripes; ++j) {
    const std::size_t target = layout.values() * static_cast<std::size_t>(j + 1) / static_cast<std::size_t>(stripes);
    while (column < layout.columns() && layout.value_begin(column) < target) ++column;
    bounds[static_cast<std::size_t>(j) + 1] = column;
  }
  bounds.back() = layout.columns();
  return bounds;
}

}  // namespace psbench::compress
