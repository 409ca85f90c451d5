#include "mpi/handles.hpp"

#include <cstdio>
#include <utility>

#include "mpi/call.hpp"

namespace psbench::mpi {
namespace {

bool finalized() {
  int done = 0;
  MPI_Finalized(&done);
  return done != 0;
}

}  // namespace

Group::Group(MPI_Comm comm) { PSBENCH_MPI_CALL(MPI_Comm_group(comm, &group_)); }

Group::Group(Group&& other) noexcept : group_(std::exchange(other.group_, MPI_GROUP_NULL)) {}

Group::~Group() {
  if (group_ == MPI_GROUP_NULL || finalized()) return;
  if (MPI_Group_free(&group_) != MPI_SUCCESS) std::fprintf(stderr, "psbench: warning: MPI_Group_free failed\n");
}

Info::Info() { PSBENCH_MPI_CALL(MPI_Info_create(&info_)); }

Info::Info(Info&& other) noexcept : info_(std::exchange(other.info_, MPI_INFO_NULL)) {}

Info::~Info() {
  if (info_ == MPI_INFO_NULL || finalized()) return;
  if (MPI_Info_free(&info_) != MPI_SUCCESS) std::fprintf(stderr, "psbench: warning: MPI_Info_free failed\n");
}

void Info::set(const char* key, const char* value) { PSBENCH_MPI_CALL(MPI_Info_set(info_, key, value)); }

}  // namespace psbench::mpi
