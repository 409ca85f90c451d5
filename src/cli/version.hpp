#pragma once

#include <string>

namespace psbench::cli {

/// Multi-line version text: psbench's own version and the MPI, HDF5 and oneDNN versions read from the
/// linked libraries at run time.
std::string version_text();

}  // namespace psbench::cli
