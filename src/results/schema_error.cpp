#include "results/schema_error.hpp"

#include <utility>

namespace psbench::results {

SchemaError::SchemaError(std::string key_path, std::string problem)
    : UserError(problem), key_path_(std::move(key_path)), problem_(std::move(problem)) {
  compose();
}

void SchemaError::prefix_key(std::string_view key) {
  if (key_path_.empty() || key_path_.front() == '[') {
    key_path_ = std::string(key) + key_path_;
  } else {
    key_path_ = std::string(key) + "." + key_path_;
  }
  compose();
}

void SchemaError::prefix_index(std::size_t index) {
  const std::string element = "[" + std::to_string(index) + "]";
  if (key_path_.empty() || key_path_.front() == '[') {
    key_path_ = element + key_path_;
  } else {
    key_path_ = element + "." + key_path_;
  }
  compose();
}

void SchemaError::set_source(std::string source) {
  source_ = std::move(source);
  compose();
}

void SchemaError::compose() {
  message_ = source_.empty() ? "" : source_ + ": ";
  message_ += key_path_.empty() ? "the document " + problem_ : "key '" + key_path_ + "' " + problem_;
}

}  // namespace psbench::results
