#pragma once

#include <mpi.h>

#if !(MPI_VERSION >= 4) && defined(OPEN_MPI)
#include <mpi-ext.h>  // Open MPI 4.x: persistent collectives as MPIX_*_init
#endif

namespace psbench::train {

/// True where MPI has a persistent allreduce (MPI 4, or Open MPI 4's MPIX_Allreduce_init): built once, its
/// schedule and temporary buffers are reused by every start, so a start allocates nothing. Without one, every
/// start is an MPI_Iallreduce.
#if MPI_VERSION >= 4 || (defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ)
inline constexpr bool kPersistentAllreduce = true;
#else
inline constexpr bool kPersistentAllreduce = false;
#endif

/// Builds the persistent sum allreduce of count values of type from send into receive over comm in request (where
/// kPersistentAllreduce is false it builds nothing and returns MPI_SUCCESS).
int allreduce_init(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm, MPI_Request* request);

/// Starts the allreduce of these arguments: MPI_Start of request where it is persistent, else a new
/// MPI_Iallreduce (sum) into request.
int start_allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm, MPI_Request* request);

}  // namespace psbench::train
