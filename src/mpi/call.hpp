#pragma once

#include <mpi.h>

namespace psbench::mpi {

/// Throws SystemError naming the MPI call and its error string unless status is MPI_SUCCESS.
void check_call(int status, const char* call);

}  // namespace psbench::mpi

/// Runs an MPI call and turns a failure into a SystemError that names it.
#define PSBENCH_MPI_CALL(call) ::psbench::mpi::check_call((call), #call)
