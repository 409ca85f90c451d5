#include "ps/transport/server_transports.hpp"

#include <algorithm>

#include "ps/transport/messages_path.hpp"
#include "ps/transport/messages_server.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/rma_link.hpp"
#include "ps/transport/rma_path.hpp"
#include "ps/transport/rma_server.hpp"
#include "ps/transport/window_path.hpp"
#include "ps/transport/window_server.hpp"

namespace psbench::ps {

ServerTransport& ServerTransports::of(int source) const {
  return *by_worker[static_cast<std::size_t>(source - servers)];
}

ServerTransports make_server_transports(const mpi::Communicator& comm, const Topology& topology,
                                        const ShardLayout& layout, const Links& links, const PushValidator& validator,
                                        std::chrono::microseconds spin_budget) {
  ServerTransports transports;
  transports.servers = topology.servers;
  transports.by_worker.assign(static_cast<std::size_t>(topology.workers()), nullptr);
  const std::size_t size = layout.size(topology.rank);
  if (links.window != nullptr && !links.window->local_workers().empty()) {
    auto window = std::make_unique<WindowServer>(links.window->local_workers(), links.window->own_doorbell(),
                                                 layout.begin(topology.rank), size);
    for (const LocalWorker& worker : links.window->local_workers()) {
      transports.by_worker[static_cast<std::size_t>(topology.worker_index_of(worker.world_rank))] = window.get();
    }
    transports.all.push_back(std::move(window));
  }
  if (links.rma != nullptr && links.rma->any()) {
    auto rma = std::make_unique<RmaServer>(*links.rma, topology, size);
    bool used = false;
    for (int w = 0; w < topology.workers(); ++w) {
      if (transports.by_worker[static_cast<std::size_t>(w)] != nullptr || !links.rma->serves(w, topology.rank))
        continue;
      transports.by_worker[static_cast<std::size_t>(w)] = rma.get();
      used = true;
    }
    if (used) transports.all.push_back(std::move(rma));
  }
  if (std::ranges::find(transports.by_worker, nullptr) != transports.by_worker.end()) {
    auto messages = std::make_unique<MessagesServer>(comm, topology.rank, size, validator, spin_budget);
    for (ServerTransport*& transport : transports.by_worker) {
      if (transport == nullptr) transport = messages.get();
    }
    transports.all.push_back(std::move(messages));
  }
  return transports;
}

std::vector<std::unique_ptr<ServerPath>> make_server_paths(const mpi::Communicator& comm, const Topology& topology,
                                                           const ShardLayout& layout, const Links& links) {
  std::vector<std::unique_ptr<ServerPath>> paths;
  for (int k = 0; k < topology.servers; ++k) {
    if (links.window != nullptr && links.window->mailbox(k) != nullptr) {
      paths.push_back(std::make_unique<WindowPath>(*links.window, k, layout.begin(k), layout.size(k)));
    } else if (links.rma != nullptr && links.rma->serves(topology.worker_index(), k)) {
      paths.push_back(std::make_unique<RmaPath>(*links.rma, topology, k, layout.begin(k), layout.size(k)));
    } else {
      paths.push_back(std::make_unique<MessagesPath>(comm, topology.server_rank(k), layout.begin(k), layout.size(k)));
    }
  }
  return paths;
}

}  // namespace psbench::ps
