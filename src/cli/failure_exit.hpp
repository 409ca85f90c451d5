#pragma once

#include <exception>

#include "mpi/communicator.hpp"

namespace psbench::cli {

/// Prints one "psbench: error: ..." line for the exception and returns the exit code; a failure that only
/// this rank saw ends every rank of the job (MPI_Abort) so nothing hangs.
int exit_after_failure(const std::exception_ptr& failure, const mpi::Communicator& world);

}  // namespace psbench::cli
