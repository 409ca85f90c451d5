#include "results/json_fields.hpp"

#include <cmath>

namespace psbench::results {

std::string json_kind(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "the integer " + value.dump();
    case Json::value_t::number_float: return "the number " + value.dump();
    default: return "a value of another kind";
  }
}

void wrong_type(const Json& value, std::string_view expected) {
  throw SchemaError("", "must be " + std::string(expected) + ", found " + json_kind(value));
}

void require_object(const Json& value) {
  if (!value.is_object()) wrong_type(value, "an object");
}

void read_value(const Json& value, double& out) {
  if (!value.is_number()) wrong_type(value, "a number");
  out = value.get<double>();
}

void read_value(const Json& value, bool& out) {
  if (!value.is_boolean()) wrong_type(value, "true or false");
  out = value.get<bool>();
}

void read_value(const Json& value, std::string& out) {
  if (!value.is_string()) wrong_type(value, "a string");
  out = value.get<std::string>();
}

void write_value(Json& out, double value) {
  if (!std::isfinite(value)) {
    throw SchemaError("", "is " +
                              std::string(std::isnan(value) ? "NaN"
                                          : value > 0       ? "+infinity"
                                                            : "-infinity") +
                              ": a non-finite number is never written");
  }
  out = value;
}

void write_value(Json& out, bool value) { out = value; }

void write_value(Json& out, const std::string& value) { out = value; }

}  // namespace psbench::results
