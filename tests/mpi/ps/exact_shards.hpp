#pragma once
// What the protocol tests share: all-ones gradients at a power-of-two rate keep every value exact, so a shard at
// version v holds exactly initial - rate * v; and the three paths every case runs over.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "mpi/communicator.hpp"
#include "ps/node_link.hpp"
#include "ps/topology.hpp"

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

/// How workers reach servers in a case: messages only, one shared-memory node, or two mimicked nodes (ranks
/// split by parity), where every server serves some workers in shared memory and others by messages.
enum class Path { kMessages, kOneNode, kTwoNodes };

/// The link for a path (none for messages): the real node, or the world split in two by rank parity.
inline std::unique_ptr<NodeLink> make_link(Path path, const mpi::Communicator& world, const Topology& topology,
                                           std::size_t parameters) {
  switch (path) {
    case Path::kMessages: return nullptr;
    case Path::kOneNode: return std::make_unique<NodeLink>(world, world.split_by_node(), topology, parameters);
    case Path::kTwoNodes:
      return std::make_unique<NodeLink>(world, world.split(world.rank() % 2, world.rank()), topology, parameters);
  }
  return nullptr;
}

}  // namespace psbench::ps::testing
