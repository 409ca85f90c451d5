// Raw MPI round trips between ranks 0 and 1: the rack test's measure of a shaped link, free of psbench's protocol.
// Usage: mpi_ping_pong BYTES ROUNDS. Rank 0 prints one JSON line: bytes, the median and the fastest round trip in
// seconds, and the rate the median implies (2 * BYTES * 8 / seconds, bits per second: the message crosses the link
// each way).
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

/// Waits for `request` as psbench waits on a shared machine: test, then sleep 20 us, so that a rank waiting on
/// its link leaves the cores to the ranks and the kernel work that move the bytes.
void wait_politely(MPI_Request& request) {
  const timespec pause{0, 20000};
  int done = 0;
  for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); done == 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE)) {
    nanosleep(&pause, nullptr);
  }
}

/// Sends (to = true) or receives `buffer` to or from `peer`, waiting politely.
void transfer(std::vector<char>& buffer, int peer, bool to) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int count = static_cast<int>(buffer.size());
  if (to) {
    MPI_Isend(buffer.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &request);
  } else {
    MPI_Irecv(buffer.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &request);
  }
  wait_politely(request);
}

/// One round trip of `buffer` from rank 0 to rank 1 and back, in seconds as rank 0 sees it.
double round_trip(std::vector<char>& buffer, int rank) {
  const double start = MPI_Wtime();
  if (rank < 2) {
    transfer(buffer, 1 - rank, rank == 0);
    transfer(buffer, 1 - rank, rank == 1);
  }
  return MPI_Wtime() - start;
}

/// The median of `values` (which it reorders).
double median(std::vector<double>& values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc == 3 ? std::atol(argv[1]) : 0;
  const long rounds = argc == 3 ? std::atol(argv[2]) : 0;
  if (size < 2 || bytes <= 0 || bytes > (1L << 30) || rounds <= 0) {
    if (rank == 0) std::fprintf(stderr, "mpi_ping_pong: error: usage: mpi_ping_pong BYTES ROUNDS, on 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<char> buffer(static_cast<std::size_t>(bytes), 1);
  round_trip(buffer, rank);  // warm-up: connections are made on first use
  std::vector<double> times;
  for (long i = 0; i < rounds; ++i) times.push_back(round_trip(buffer, rank));
  if (rank == 0) {
    const double fastest = *std::min_element(times.begin(), times.end());
    const double seconds = median(times);
    std::printf(
        "{\"bytes\": %ld, \"rounds\": %ld, \"round_trip_s\": %.9g, \"fastest_round_trip_s\": %.9g, "
        "\"bits_per_s\": %.9g}\n",
        bytes, rounds, seconds, fastest, 2.0 * 8.0 * static_cast<double>(bytes) / seconds);
    std::fflush(stdout);  // before MPI_Finalize, which MPICH's UCX over TCP can hang in (docs/rack.md, "MPICH")
  }
  MPI_Finalize();
  return 0;
}
