#pragma once

#include <hdf5.h>

#include <string>

namespace psbench::data {

/// A short name for an HDF5 datatype: "uint8", "int32", "float32", "float64", "string", "compound", ...
std::string type_name(hid_t type);

}  // namespace psbench::data
