#include "train/exchange/persistent_allreduce.hpp"

namespace psbench::train {

int allreduce_init(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm, MPI_Request* request) {
#if MPI_VERSION >= 4
  return MPI_Allreduce_init(send, receive, count, type, MPI_SUM, comm, MPI_INFO_NULL, request);
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
  return MPIX_Allreduce_init(send, receive, count, type, MPI_SUM, comm, MPI_INFO_NULL, request);
#else
  (void)send, (void)receive, (void)count, (void)type, (void)comm, (void)request;
  return MPI_SUCCESS;
#endif
}

int start_allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm,
                    MPI_Request* request) {
  if (kPersistentAllreduce) return MPI_Start(request);
  return MPI_Iallreduce(send, receive, count, type, MPI_SUM, comm, request);
}

}  // namespace psbench::train
