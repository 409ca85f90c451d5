#pragma once
// What the protocol tests share: all-ones gradients at a power-of-two rate keep every value exact, so a shard at
// version v holds exactly initial - rate * v; and the transports every case runs over.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mpi/backoff_wait.hpp"
#include "mpi/communicator.hpp"
#include "ps/protocol_settings.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"
#include "ps/transport/links.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/rma_link.hpp"

namespace psbench::ps::testing {

/// The update's rate: a power of two keeps every value exact in float.
inline constexpr float kRate = 0.5F;

/// The first parameters: distinct values, exact in float.
inline std::vector<float> initial_parameters(std::size_t parameters) {
  std::vector<float> values(parameters);
  for (std::size_t i = 0; i < parameters; ++i) values[i] = 1000.0F + static_cast<float>(i % 4096);
  return values;
}

/// The index of the first value of actual that is not exactly initial - shift, or actual.size() when none is
/// (one assertion per shard, not one per value: under ASan that was most of a test's minute).
inline std::size_t first_mismatch(std::span<const float> actual, std::span<const float> initial, float shift) {
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != initial[i] - shift) return i;
  }
  return actual.size();
}

/// How workers reach servers in a case: messages only, one shared-memory node, two mimicked nodes (ranks split by
/// parity), where every server serves some workers in shared memory and others by messages, RMA for every pair on one
/// node, or two mimicked nodes whose cross-node pairs use RMA (each server then serves by window and by RMA).
enum class Path { kMessages, kOneNode, kTwoNodes, kRma, kTwoNodesRma };

/// The shared memory of a case's transports; used as a NodeLink pointer (link->gradients()) and, through get(), as
/// the Links a Server or WorkerClient takes.
struct TestLinks {
  std::unique_ptr<NodeLink> window;  ///< the node's window, or nullptr
  std::unique_ptr<RmaLink> rma;      ///< the RMA windows, or nullptr

  /// Whether a node window exists.
  explicit operator bool() const { return window != nullptr; }
  /// The node window.
  NodeLink* operator->() const { return window.get(); }
  /// What a Server or WorkerClient takes.
  [[nodiscard]] Links get() const { return {window.get(), rma.get()}; }
};

/// The links for a path: the real node, or the world split in two by rank parity; packed_words: room for a
/// compressed gradient.
inline TestLinks make_link(Path path, const mpi::Communicator& world, const Topology& topology, std::size_t parameters,
                           std::size_t packed_words = 0) {
  TestLinks links;
  const auto node_of = [&](bool split) {
    return split ? world.split(world.rank() % 2, world.rank()) : world.split_by_node();
  };
  const ShardLayout layout(parameters, topology.servers);
  switch (path) {
    case Path::kMessages: break;
    case Path::kOneNode:
    case Path::kTwoNodes:
      links.window =
          std::make_unique<NodeLink>(world, node_of(path == Path::kTwoNodes), topology, parameters, packed_words);
      break;
    case Path::kRma:
      links.rma = std::make_unique<RmaLink>(world, node_of(false), topology, layout, Transport::kRma, Transport::kRma,
                                            packed_words);
      break;
    case Path::kTwoNodesRma:
      links.window = std::make_unique<NodeLink>(world, node_of(true), topology, parameters, packed_words);
      links.rma = std::make_unique<RmaLink>(world, node_of(true), topology, layout, Transport::kWindow, Transport::kRma,
                                            packed_words);
      break;
  }
  return links;
}

/// The name of a path in a test's name.
inline std::string path_name(Path path) {
  switch (path) {
    case Path::kMessages: return "Messages";
    case Path::kOneNode: return "SharedMemory";
    case Path::kTwoNodes: return "TwoNodesMixed";
    case Path::kRma: return "Rma";
    case Path::kTwoNodesRma: return "TwoNodesWindowAndRma";
  }
  return "";
}

/// What a case's servers and workers are given: the staleness bound, the stall timeout, and the spin budget in force
/// (tests set it with mpi::set_spin_budget).
inline ProtocolSettings settings(int staleness = -1, double stall_timeout_s = kDefaultStallTimeoutSeconds) {
  return {staleness, stall_timeout_s, mpi::spin_budget()};
}

}  // namespace psbench::ps::testing
