#include "data/hdf5_type.hpp"

namespace psbench::data {

std::string type_name(hid_t type) {
  const std::string bits = std::to_string(H5Tget_size(type) * 8);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
    case H5T_FLOAT: return "float" + bits;
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield" + bits;
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown type";
  }
}

}  // namespace psbench::data
