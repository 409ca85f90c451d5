#include "cli/version.hpp"

#include <hdf5.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "mpi/environment.hpp"

namespace psbench::cli {

std::string version_text() {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned release = 0;
  H5get_libversion(&major, &minor, &release);
  const dnnl_version_t* dnnl = dnnl_version();
  std::string text = "psbench " PSBENCH_VERSION "\n";
  text += "MPI: " + mpi::Environment::library_version() + "\n";
  text += "HDF5: " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) + "\n";
  text += "oneDNN: " + std::to_string(dnnl->major) + "." + std::to_string(dnnl->minor) + "." +
          std::to_string(dnnl->patch) + " (" + dnnl->hash + ")";
  return text;
}

}  // namespace psbench::cli
