#include "data/token.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace psbench::data {
namespace {

constexpr int kSpinProbes = 16;
constexpr auto kFirstSleep = std::chrono::microseconds(20);
constexpr auto kLongestSleep = std::chrono::microseconds(1000);

}  // namespace

void send_token(const mpi::Communicator& comm, int dest, int tag) {
  int token = 0;
  PSBENCH_MPI_CALL(MPI_Send(&token, 1, MPI_INT, dest, tag, comm.native()));
}

void receive_token(const mpi::Communicator& comm, int source, int tag) {
  int found = 0;
  auto sleep = kFirstSleep;
  for (int attempt = 0;; ++attempt) {
    PSBENCH_MPI_CALL(MPI_Iprobe(source, tag, comm.native(), &found, MPI_STATUS_IGNORE));
    if (found != 0) break;
    if (attempt < kSpinProbes) continue;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, kLongestSleep);
  }
  int token = 0;
  PSBENCH_MPI_CALL(MPI_Recv(&token, 1, MPI_INT, source, tag, comm.native(), MPI_STATUS_IGNORE));
}

}  // namespace psbench::data
