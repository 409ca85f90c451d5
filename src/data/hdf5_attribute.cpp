#include "data/hdf5_attribute.hpp"

#include "common/error.hpp"
#include "data/hdf5_handle.hpp"

namespace psbench::data {
namespace {

Datatype utf8_string_type(std::size_t size) {
  Datatype type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"));
  check_status(size == 0 ? H5Tset_size(type.get(), H5T_VARIABLE) : H5Tset_size(type.get(), size), "H5Tset_size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type, hid_t space,
                     const void* data) {
  const std::string what = std::string("attribute '") + name + "'";
  if (H5Aexists(object, name) > 0) check_status(H5Adelete(object, name), "deleting " + what);
  Attribute attribute(
      check_id(H5Acreate2(object, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), "creating " + what));
  check_status(H5Awrite(attribute.get(), memory_type, data), "writing " + what);
}

Dataspace vector_space(std::size_t count) {
  const hsize_t dims[1] = {count};
  return Dataspace(check_id(H5Screate_simple(1, dims, nullptr), "H5Screate_simple"));
}

}  // namespace

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
  const Datatype type = utf8_string_type(0);
  const Dataspace space(check_id(H5Screate(H5S_SCALAR), "H5Screate"));
  const char* text = value.c_str();
  write_attribute(object, name, type.get(), type.get(), space.get(), &text);
}

void write_strings_attribute(hid_t object, const char* name, const std::vector<std::string>& values) {
  const Datatype type = utf8_string_type(0);
  const Dataspace space = vector_space(values.size());
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const auto& value : values) texts.push_back(value.c_str());
  write_attribute(object, name, type.get(), type.get(), space.get(), texts.data());
}

void write_doubles_attribute(hid_t object, const char* name, std::span<const double> values) {
  const Dataspace space = vector_space(values.size());
  write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), values.data());
}

void write_ints_attribute(hid_t object, const char* name, std::span<const std::int32_t> values, bool scalar) {
  const Dataspace space = scalar && values.size() == 1 ? Dataspace(check_id(H5Screate(H5S_SCALAR), "H5Screate"))
                                                       : vector_space(values.size());
  write_attribute(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, space.get(), values.data());
}

bool has_attribute(hid_t object, const char* name) { return H5Aexists(object, name) > 0; }

std::vector<double> read_doubles_attribute(hid_t object, const char* name) {
  const std::string what = std::string("attribute '") + name + "'";
  const Attribute attribute(check_id(H5Aopen(object, name, H5P_DEFAULT), "opening " + what));
  const Datatype type(check_id(H5Aget_type(attribute.get()), "H5Aget_type"));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) throw SystemError(what + " is not numeric");
  const Dataspace space(check_id(H5Aget_space(attribute.get()), "H5Aget_space"));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  check_status(static_cast<herr_t>(count < 0 ? -1 : 0), "counting " + what);
  std::vector<double> values(static_cast<std::size_t>(count));
  check_status(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()), "reading " + what);
  return values;
}

std::vector<std::string> read_strings_attribute(hid_t object, const char* name) {
  const std::string what = std::string("attribute '") + name + "'";
  const Attribute attribute(check_id(H5Aopen(object, name, H5P_DEFAULT), "opening " + what));
  const Datatype type(check_id(H5Aget_type(attribute.get()), "H5Aget_type"));
  if (H5Tget_class(type.get()) != H5T_STRING) throw SystemError(what + " is not a string");
  const Dataspace space(check_id(H5Aget_space(attribute.get()), "H5Aget_space"));
  const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  std::vector<std::string> values;
  values.reserve(count);
  const Datatype memory(check_id(H5Tcopy(type.get()), "H5Tcopy"));  // same character set: no conversion
  if (H5Tis_variable_str(type.get()) > 0) {
    std::vector<char*> texts(count, nullptr);
    check_status(H5Aread(attribute.get(), memory.get(), texts.data()), "reading " + what);
    for (char* text : texts) values.emplace_back(text != nullptr ? text : "");
    H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, texts.data());
    return values;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::vector<char> buffer(count * size);
  check_status(H5Aread(attribute.get(), memory.get(), buffer.data()), "reading " + what);
  for (std::size_t i = 0; i < count; ++i) {
    std::string text(buffer.data() + i * size, size);
    text.resize(text.find('\0') == std::string::npos ? size : text.find('\0'));
    values.push_back(std::move(text));
  }
  return values;
}

}  // namespace psbench::data
