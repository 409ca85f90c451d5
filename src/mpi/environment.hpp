#pragma once

#include <string>
#include <string_view>

#include "mpi/communicator.hpp"

namespace psbench::mpi {

/// Owns MPI_Init_thread/MPI_Finalize for the life of main; makes errors return codes and makes a failed
/// PSBENCH_CHECK abort the whole job.
class Environment {
 public:
  /// Initialises MPI (thread level FUNNELED) unless it already is.
  Environment(int& argc, char**& argv);
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  /// Finalises MPI if this object initialised it and it is not finalised yet.
  ~Environment();

  /// A non-owning view of MPI_COMM_WORLD.
  [[nodiscard]] Communicator& world() { return world_; }
  /// The MPI library's name and version at run time: "Open MPI v4.1.4", "MPICH Version: 4.0.2".
  [[nodiscard]] static std::string library_version();
  /// Ends every rank of the job with an exit code; never returns.
  [[noreturn]] static void abort(int exit_code);

 private:
  bool owns_init_ = false;
  Communicator world_;
};

/// The name and version in an MPI_Get_library_version text: its first line up to any comma, each run of blanks
/// one space ("Open MPI v4.1.4, package: ..." and "MPICH Version:\t4.0.2\nMPICH Release date: ...").
[[nodiscard]] std::string short_library_version(std::string_view text);

}  // namespace psbench::mpi
