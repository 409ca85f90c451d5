#pragma once

#include <string>

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
  /// "Open MPI v4.1.4, ..." as reported by the library at run time.
  [[nodiscard]] static std::string library_version();
  /// Ends every rank of the job with an exit code; never returns.
  [[noreturn]] static void abort(int exit_code);

 private:
  bool owns_init_ = false;
  Communicator world_;
};

}  // namespace psbench::mpi
