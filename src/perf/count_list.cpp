#include "perf/count_list.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

constexpr int kMaxCount = 1 << 24;
constexpr int kMaxExponent = 24;

[[noreturn]] void fail(const std::string& flag, const std::string& item, const std::string& problem) {
  throw UserError(flag + " '" + item + "' " + problem +
                  ": use counts >= 1 such as 4, 1-16, 2^0-2^17 or 1,2,4 (comma-separated)");
}

// One count: `N` or `2^K`.
int parse_count(std::string_view word, const std::string& flag, const std::string& item) {
  const bool power = word.starts_with("2^");
  const std::string_view digits = power ? word.substr(2) : word;
  int value = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size())
    fail(flag, item, "is not a count");
  if (power) {
    if (value < 0 || value > kMaxExponent) fail(flag, item, "has an exponent outside [0, 24]");
    return 1 << value;
  }
  if (value < 1) fail(flag, item, "holds a count of " + std::to_string(value) + ", below 1");
  if (value > kMaxCount) fail(flag, item, "holds a count above 2^24");
  return value;
}

void append_item(std::string_view item, const std::string& flag, std::vector<int>& counts) {
  const std::string text(item);
  if (item.empty()) fail(flag, text, "has an empty item");
  const std::size_t dash = item.find('-');
  if (dash == std::string_view::npos) {
    counts.push_back(parse_count(item, flag, text));
    return;
  }
  const int first = parse_count(item.substr(0, dash), flag, text);
  const int last = parse_count(item.substr(dash + 1), flag, text);
  if (last < first) fail(flag, text, "is a range that runs backwards");
  const bool powers = item.starts_with("2^") && item.substr(dash + 1).starts_with("2^");
  if (powers) {
    for (long long value = first; value <= last; value *= 2) counts.push_back(static_cast<int>(value));
  } else {
    for (int value = first; value <= last; ++value) counts.push_back(value);
  }
}

}  // namespace

std::vector<int> parse_count_list(const std::string& text, const std::string& flag) {
  if (text.find_first_not_of(", ") == std::string::npos)
    throw UserError(flag + " is an empty list: give counts such as 4, 1-16 or 2^0-2^17");
  std::vector<int> counts;
  std::string_view rest(text);
  while (true) {
    const std::size_t comma = rest.find(',');
    append_item(rest.substr(0, comma), flag, counts);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

}  // namespace psbench::perf
