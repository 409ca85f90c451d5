#include "train/library_versions.hpp"

#include <hdf5.h>

#include <string>

#include "mpi/environment.hpp"
#include "nn/onednn_info.hpp"

namespace psbench::train {

nlohmann::json library_versions() {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned release = 0;
  H5get_libversion(&major, &minor, &release);
  return {{"psbench", PSBENCH_VERSION},
          {"mpi", mpi::Environment::library_version()},
          {"hdf5", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release)},
          {"onednn", nn::onednn_version()}};
}

}  // namespace psbench::train
