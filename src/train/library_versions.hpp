#pragma once

#include <nlohmann/json.hpp>

namespace psbench::train {

/// psbench's version and the MPI, HDF5 and oneDNN versions read from the linked libraries at run time.
nlohmann::json library_versions();

}  // namespace psbench::train
