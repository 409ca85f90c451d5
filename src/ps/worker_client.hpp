#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/phase_timer.hpp"
#include "mpi/communicator.hpp"
#include "ps/protocol.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"

namespace psbench::ps {

/// Worker side of the protocol: pushes every gradient shard to its server and pulls the fresh shard
/// straight into the parameter vector (no copies: MPI reads and writes the model's own buffers).
class WorkerClient {
 public:
  /// Prepares headers and requests for every server; allocates nothing later.
  WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout);
  /// One step's exchange: sends gradients' shards tagged with the versions last pulled, then receives the
  /// fresh shards into parameters; adds the send time to Phase::kPush and the rest to Phase::kPull.
  /// gradients must stay untouched until this returns (it does, the call blocks).
  void push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                 PhaseTimer& timer);
  /// Tells every server this worker has finished; call once, after the last push_pull.
  void finish();
  /// Versions of each shard as last pulled.
  [[nodiscard]] const std::vector<std::uint64_t>& versions() const { return versions_; }

 private:
  const mpi::Communicator& world_;
  Topology topology_;
  ShardLayout layout_;
  std::vector<std::uint64_t> versions_;
  std::vector<PushHeader> push_headers_;
  std::vector<PullHeader> pull_headers_;
  std::vector<MPI_Request> sends_;
  std::vector<MPI_Request> receives_;
};

}  // namespace psbench::ps
