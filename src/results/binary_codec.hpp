#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "results/results_fields.hpp"

namespace psbench::results {

/// Appends typed values to a compact byte string (native byte order: for ranks of one job, never for files).
/// Structs are written member by member in the order their fields() names them.
class BinaryWriter {
 public:
  /// Appends a number or boolean as its bytes.
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T value) { bytes_.append(reinterpret_cast<const char*>(&value), sizeof value); }
  /// Appends a length and the characters.
  void put(const std::string& text) {
    put<std::uint64_t>(text.size());
    bytes_.append(text);
  }
  /// Appends a count and the elements.
  template <class T>
  void put(const std::vector<T>& values) {
    put<std::uint64_t>(values.size());
    for (const T& value : values) put(value);
  }
  /// Appends a count and the key-value pairs.
  template <class T>
  void put(const std::map<std::string, T>& values) {
    put<std::uint64_t>(values.size());
    for (const auto& [key, value] : values) {
      put(key);
      put(value);
    }
  }
  /// Appends a presence flag and the value if present.
  template <class T>
  void put(const std::optional<T>& value) {
    put<std::uint8_t>(value ? 1 : 0);
    if (value) put(*value);
  }
  /// Appends every member of a schema struct.
  template <class T>
  requires std::is_class_v<T>
  void put(const T& value) {
    fields(value, [&](std::string_view, const auto& member) { put(member); });
  }
  /// The bytes written so far.
  [[nodiscard]] const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads what BinaryWriter wrote, in the same order; running past the end throws SystemError.
class BinaryReader {
 public:
  /// Reads from bytes, which must outlive the reader.
  explicit BinaryReader(std::string_view bytes) : bytes_(bytes) {}
  /// Reads a number or boolean.
  template <class T>
  requires std::is_arithmetic_v<T>
  void get(T& value) { std::memcpy(&value, take(sizeof value), sizeof value); }
  /// Reads a string.
  void get(std::string& text) {
    const std::size_t size = count();
    text.assign(take(size), size);
  }
  /// Reads a vector.
  template <class T>
  void get(std::vector<T>& values) {
    values.assign(count(), T{});
    for (T& value : values) get(value);
  }
  /// Reads a map.
  template <class T>
  void get(std::map<std::string, T>& values) {
    values.clear();
    for (std::size_t n = count(); n > 0; --n) {
      std::string key;
      get(key);
      get(values[key]);
    }
  }
  /// Reads an optional value.
  template <class T>
  void get(std::optional<T>& value) {
    std::uint8_t present = 0;
    get(present);
    value.reset();
    if (present != 0) get(value.emplace());
  }
  /// Reads every member of a schema struct.
  template <class T>
  requires std::is_class_v<T>
  void get(T& value) {
    fields(value, [&](std::string_view, auto& member) { get(member); });
  }
  /// True when every byte has been read.
  [[nodiscard]] bool done() const { return offset_ == bytes_.size(); }

 private:
  std::size_t count() {
    std::uint64_t n = 0;
    get(n);
    if (n > bytes_.size() - offset_) throw SystemError("corrupt binary record: a count runs past its end");
    return static_cast<std::size_t>(n);
  }
  const char* take(std::size_t size) {
    if (size > bytes_.size() - offset_) throw SystemError("corrupt binary record: it ends early");
    const char* at = bytes_.data() + offset_;
    offset_ += size;
    return at;
  }

  std::string_view bytes_;
  std::size_t offset_ = 0;
};

/// A per_rank entry as compact bytes, for gathering the ranks' reports without JSON text.
std::string encode_rank_entry(const RankEntry& entry);

/// The per_rank entry that encode_rank_entry wrote; throws SystemError on bytes that do not decode exactly.
RankEntry decode_rank_entry(std::string_view bytes);

}  // namespace psbench::results
