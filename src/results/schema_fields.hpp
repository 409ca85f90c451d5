#pragma once

#include <concepts>
#include <optional>
#include <string_view>
#include <type_traits>

#include "results/json_fields.hpp"

namespace psbench::results {

/// True when Self is T or const T: the fields() overload of struct T takes either.
template <class Self, class T>
concept FieldsOf = std::same_as<std::remove_const_t<Self>, T>;

/// Writes one member of a struct; an empty optional member is left out.
template <class T>
void write_field(Json& out, std::string_view key, const T& member) {
  write_key(out, key, member);
}

/// Writes an optional member when it is set.
template <class T>
void write_field(Json& out, std::string_view key, const std::optional<T>& member) {
  write_optional_key(out, key, member, false);
}

/// Reads one required member of a struct.
template <class T>
void read_field(const Json& in, std::string_view key, T& member) {
  read_key(in, key, member);
}

/// Reads an optional member (absent or null: empty).
template <class T>
void read_field(const Json& in, std::string_view key, std::optional<T>& member) {
  read_optional_key(in, key, member);
}

/// Writes every member that fields(value, visitor) names into a fresh object.
template <class T>
void write_fields(Json& out, const T& value) {
  out = Json::object();
  fields(value, [&](std::string_view key, const auto& member) { write_field(out, key, member); });
}

/// Reads every member that fields(value, visitor) names from an object.
template <class T>
void read_fields(const Json& in, T& value) {
  require_object(in);
  fields(value, [&](std::string_view key, auto& member) { read_field(in, key, member); });
}

}  // namespace psbench::results
