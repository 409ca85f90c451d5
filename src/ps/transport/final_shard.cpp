#include "ps/transport/final_shard.hpp"

#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "mpi/request_set.hpp"
#include "ps/protocol.hpp"

namespace psbench::ps {

void send_final_shard(const mpi::Communicator& comm, int worker_rank, std::span<const float> shard,
                      std::chrono::microseconds spin_budget) {
  mpi::RequestSet send(1, "a server's final shard");
  PSBENCH_MPI_CALL(MPI_Isend(shard.data(), static_cast<int>(shard.size()), MPI_FLOAT, worker_rank, kTagFinalShard,
                             comm.native(), send.at(0)));
  mpi::wait_with_backoff(spin_budget, [&] { return mpi::test_all(send.all()); });
}

void receive_final_shards(const mpi::Communicator& comm, const Topology& topology, const ShardLayout& layout,
                          std::span<float> parameters, std::chrono::microseconds spin_budget) {
  mpi::RequestSet receives(static_cast<std::size_t>(topology.servers), "a worker's final-shard receives");
  for (int k = 0; k < topology.servers; ++k) {
    PSBENCH_MPI_CALL(MPI_Irecv(parameters.data() + layout.begin(k), static_cast<int>(layout.size(k)), MPI_FLOAT,
                               topology.server_rank(k), kTagFinalShard, comm.native(),
                               receives.at(static_cast<std::size_t>(k))));
  }
  mpi::wait_with_backoff(spin_budget, [&] { return mpi::test_all(receives.all()); });
}

}  // namespace psbench::ps
