#pragma once

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace psbench::data {

/// Writes a scalar UTF-8 string attribute on an object.
void write_string_attribute(hid_t object, const char* name, const std::string& value);
/// Writes an array of UTF-8 strings as an attribute on an object.
void write_strings_attribute(hid_t object, const char* name, const std::vector<std::string>& values);
/// Writes a float64 array attribute on an object.
void write_doubles_attribute(hid_t object, const char* name, std::span<const double> values);
/// Writes an int32 array attribute on an object (a scalar when values has one element and scalar is set).
void write_ints_attribute(hid_t object, const char* name, std::span<const std::int32_t> values, bool scalar);

/// True when the object carries an attribute of that name.
bool has_attribute(hid_t object, const char* name);
/// Reads a numeric attribute of any shape as float64 values (HDF5 converts the type).
std::vector<double> read_doubles_attribute(hid_t object, const char* name);
/// Reads a string attribute (fixed or variable length, scalar or array) as strings.
std::vector<std::string> read_strings_attribute(hid_t object, const char* name);

}  // namespace psbench::data
