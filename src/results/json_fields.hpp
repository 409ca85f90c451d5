#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "results/schema_error.hpp"

namespace psbench::results {

/// The JSON value type of every schema document.
using Json = nlohmann::json;

/// "null", "a string", "an array", ...: how a problem message names what it found.
std::string json_kind(const Json& value);

/// Throws SchemaError (at the current path) saying what was expected and what was found.
[[noreturn]] void wrong_type(const Json& value, std::string_view expected);

/// Throws SchemaError unless value is a JSON object.
void require_object(const Json& value);

/// Reads a number (integer or not, never a boolean).
void read_value(const Json& value, double& out);
/// Reads a boolean.
void read_value(const Json& value, bool& out);
/// Reads a string.
void read_value(const Json& value, std::string& out);

/// Reads an integer that fits T (a number with a fraction, or out of T's range, is refused).
template <class T>
requires std::integral<T> &&(!std::same_as<T, bool>)void read_value(const Json& value, T& out) {
  if (!value.is_number_integer()) wrong_type(value, "an integer");
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      throw SchemaError("", "is " + std::to_string(number) + ", out of range");
    }
    out = static_cast<T>(number);
    return;
  }
  const auto number = value.get<std::int64_t>();
  if (number < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
      (number > 0 && static_cast<std::uint64_t>(number) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
    throw SchemaError("", "is " + std::to_string(number) + ", out of range");
  }
  out = static_cast<T>(number);
}

/// Reads a schema struct through its from_json (found by argument-dependent lookup).
template <class T>
requires std::is_class_v<T>
void read_value(const Json& value, T& out) { from_json(value, out); }

/// Reads an array, naming the element index in any error.
template <class T>
void read_value(const Json& value, std::vector<T>& out) {
  if (!value.is_array()) wrong_type(value, "an array");
  out.assign(value.size(), T{});
  for (std::size_t i = 0; i < value.size(); ++i) {
    try {
      read_value(value[i], out[i]);
    } catch (SchemaError& error) {
      error.prefix_index(i);
      throw;
    }
  }
}

/// Reads an object of values of one type, naming the member in any error.
template <class T>
void read_value(const Json& value, std::map<std::string, T>& out) {
  require_object(value);
  out.clear();
  for (const auto& [key, member] : value.items()) {
    try {
      read_value(member, out[key]);
    } catch (SchemaError& error) {
      error.prefix_key(key);
      throw;
    }
  }
}

/// Reads the required member key of object; a missing key or a bad value throws SchemaError naming it.
template <class T>
void read_key(const Json& object, std::string_view key, T& out) {
  require_object(object);
  const auto found = object.find(std::string(key));
  if (found == object.end()) throw SchemaError(std::string(key), "is missing");
  try {
    read_value(*found, out);
  } catch (SchemaError& error) {
    error.prefix_key(key);
    throw;
  }
}

/// Reads an optional member: absent or null gives nullopt; any other value must fit T.
template <class T>
void read_optional_key(const Json& object, std::string_view key, std::optional<T>& out) {
  require_object(object);
  const auto found = object.find(std::string(key));
  if (found == object.end() || found->is_null()) {
    out.reset();
    return;
  }
  out.emplace();
  read_key(object, key, *out);
}

/// Writes a number; a non-finite one is refused with SchemaError (JSON has no NaN, and a null would hide it).
void write_value(Json& out, double value);
/// Writes a boolean.
void write_value(Json& out, bool value);
/// Writes a string.
void write_value(Json& out, const std::string& value);

/// Writes an integer.
template <class T>
requires std::integral<T> &&(!std::same_as<T, bool>)void write_value(Json& out, T value) { out = value; }

/// Writes a schema struct through its to_json (found by argument-dependent lookup).
template <class T>
requires std::is_class_v<T>
void write_value(Json& out, const T& value) { to_json(out, value); }

/// Writes an array, naming the element index in any error.
template <class T>
void write_value(Json& out, const std::vector<T>& values) {
  out = Json::array();
  for (std::size_t i = 0; i < values.size(); ++i) {
    try {
      write_value(out.emplace_back(), values[i]);
    } catch (SchemaError& error) {
      error.prefix_index(i);
      throw;
    }
  }
}

/// Writes an object of values of one type, naming the member in any error.
template <class T>
void write_value(Json& out, const std::map<std::string, T>& values) {
  out = Json::object();
  for (const auto& [key, value] : values) {
    try {
      write_value(out[key], value);
    } catch (SchemaError& error) {
      error.prefix_key(key);
      throw;
    }
  }
}

/// Writes member key of object; an error inside names the key.
template <class T>
void write_key(Json& object, std::string_view key, const T& value) {
  try {
    write_value(object[std::string(key)], value);
  } catch (SchemaError& error) {
    error.prefix_key(key);
    throw;
  }
}

/// Writes member key when value is set; otherwise writes null (when null_if_empty) or nothing.
template <class T>
void write_optional_key(Json& object, std::string_view key, const std::optional<T>& value, bool null_if_empty) {
  if (value) {
    write_key(object, key, *value);
  } else if (null_if_empty) {
    object[std::string(key)] = nullptr;
  }
}

}  // namespace psbench::results
