#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

namespace psbench::cli {

/// Turns a flag's word into its enum value, or fails with "WORD is not one of: a, b, c" (CLI11's own
/// CheckedTransformer also lists the enum's integer values, which mean nothing to a user).
template <typename Enum>
CLI::Validator choice(const std::map<std::string, Enum>& choices) {
  std::string names;
  for (const auto& entry : choices) names += (names.empty() ? "" : ", ") + entry.first;
  return CLI::Validator(
      [choices, names](std::string& word) -> std::string {
        const auto found = choices.find(word);
        if (found == choices.end()) return word + " is not one of: " + names;
        word = std::to_string(static_cast<int>(found->second));
        return {};
      },
      names);
}

}  // namespace psbench::cli
