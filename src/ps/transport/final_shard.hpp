#pragma once

#include <chrono>
#include <span>

#include "mpi/communicator.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// After serving: sends shard, a server's final values, to the worker at world rank worker_rank by message (whatever
/// transport the run used), on comm, the server's protocol communicator.
void send_final_shard(const mpi::Communicator& comm, int worker_rank, std::span<const float> shard,
                      std::chrono::microseconds spin_budget);

/// On the worker send_final_shard names: receives every server's final shard into its range of parameters.
void receive_final_shards(const mpi::Communicator& comm, const Topology& topology, const ShardLayout& layout,
                          std::span<float> parameters, std::chrono::microseconds spin_budget);

}  // namespace psbench::ps
