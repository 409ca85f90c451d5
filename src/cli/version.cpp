#include "cli/version.hpp"

#include "nn/onednn_info.hpp"
#include "train/library_versions.hpp"

namespace psbench::cli {

std::string version_text() {
  const nlohmann::json versions = train::library_versions();
  return "psbench " + versions["psbench"].get<std::string>() + "\nMPI: " + versions["mpi"].get<std::string>() +
         "\nHDF5: " + versions["hdf5"].get<std::string>() + "\noneDNN: " + versions["onednn"].get<std::string>() +
         " (ISA " + nn::onednn_isa() + ")";
}

}  // namespace psbench::cli
