#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace psbench::results {

/// A results or benchmark document that does not fit its schema (or a value the schema cannot write): names
/// the file (when known), the key path (such as per_rank[2].worker.epochs[0].loss_sum) and the problem.
class SchemaError : public UserError {
 public:
  /// A problem with the value at key path (empty: the whole document), such as "is missing".
  SchemaError(std::string key_path, std::string problem);
  /// The full message: "FILE: key 'PATH' PROBLEM".
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }
  /// Puts an object key in front of the path (the error happened inside that key's value).
  void prefix_key(std::string_view key);
  /// Puts an array index in front of the path (the error happened inside that element).
  void prefix_index(std::size_t index);
  /// Names the file (or other source) the document came from or was going to.
  void set_source(std::string source);
  /// The key path, empty for the whole document.
  [[nodiscard]] const std::string& key_path() const { return key_path_; }

 private:
  void compose();

  std::string key_path_;
  std::string problem_;
  std::string source_;
  std::string message_;
};

}  // namespace psbench::results
