#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "mpi/communicator.hpp"
#include "ps/push_validator.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"
#include "ps/transport/links.hpp"
#include "ps/transport/transport.hpp"

namespace psbench::ps {

/// The transports one server reaches its workers with, each serving at least one worker, and which one each worker
/// uses.
struct ServerTransports {
  std::vector<std::unique_ptr<ServerTransport>> all;  ///< in a fixed order: window, RMA, messages
  std::vector<ServerTransport*> by_worker;            ///< per worker index
  int servers = 0;                                    ///< S: worker index = world rank - S

  /// The transport of the worker at world rank source.
  [[nodiscard]] ServerTransport& of(int source) const;
};

/// The server of topology's transports, by the per-peer rule: a worker with a mailbox in links' node window is
/// served there, one that links' RMA link serves by RMA, every other by messages on comm.
ServerTransports make_server_transports(const mpi::Communicator& comm, const Topology& topology,
                                        const ShardLayout& layout, const Links& links, const PushValidator& validator,
                                        std::chrono::microseconds spin_budget);

/// The worker of topology's paths to every server (index: shard), by the same rule.
std::vector<std::unique_ptr<ServerPath>> make_server_paths(const mpi::Communicator& comm, const Topology& topology,
                                                           const ShardLayout& layout, const Links& links);

}  // namespace psbench::ps
