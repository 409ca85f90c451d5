#include "train/checkpoint/checkpoint_layout.hpp"

#include "common/error.hpp"
#include "data/hdf5_handle.hpp"

namespace psbench::train::checkpoint_layout {

void write_u64_attribute(hid_t object, const char* name, std::uint64_t value) {
  const std::string what = std::string("attribute '") + name + "'";
  const data::Dataspace space(data::check_id(H5Screate(H5S_SCALAR), "H5Screate"));
  const data::Attribute attribute(data::check_id(
      H5Acreate2(object, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), "creating " + what));
  data::check_status(H5Awrite(attribute.get(), H5T_NATIVE_UINT64, &value), "writing " + what);
}

std::uint64_t read_u64_attribute(hid_t object, const char* name, const std::string& file) {
  const std::string what = std::string("attribute '") + name + "'";
  if (H5Aexists(object, name) <= 0) throw SystemError("'" + file + "' has no " + what);
  const data::Attribute attribute(data::check_id(H5Aopen(object, name, H5P_DEFAULT), "opening " + what));
  const data::Dataspace space(data::check_id(H5Aget_space(attribute.get()), "H5Aget_space"));
  if (H5Sget_simple_extent_npoints(space.get()) != 1) throw SystemError(what + " is not a scalar");
  std::uint64_t value = 0;
  data::check_status(H5Aread(attribute.get(), H5T_NATIVE_UINT64, &value), "reading " + what);
  return value;
}

}  // namespace psbench::train::checkpoint_layout
