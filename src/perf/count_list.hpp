#pragma once

#include <string>
#include <vector>

namespace psbench::perf {

/// Parses a LIST of positive counts: comma-separated items, each `N`, a range `A-B` (every integer),
/// `2^A` or a range of powers `2^A-2^B`. Returns them sorted, without duplicates. Throws UserError naming
/// flag for an empty list, a count of 0, a reversed range or a word that is not a count.
std::vector<int> parse_count_list(const std::string& text, const std::string& flag);

}  // namespace psbench::perf
