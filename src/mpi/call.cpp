#include "mpi/call.hpp"

#include <string>

#include "common/error.hpp"

namespace psbench::mpi {

void check_call(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw SystemError(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

}  // namespace psbench::mpi
