#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <map>
#include <string>

namespace psbench::cli {

/// Turns a flag's word into one of values, whose words name(value) gives, or fails with "WORD is not
/// one of: a, b, c" (CLI11's own CheckedTransformer also lists the enum's integer values, which mean
/// nothing to a user).
template <typename Enum, typename Name>
CLI::Validator choice(std::initializer_list<Enum> values, Name name) {
  std::map<std::string, Enum> choices;
  for (const Enum value : values) choices.emplace(std::string(name(value)), value);
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
