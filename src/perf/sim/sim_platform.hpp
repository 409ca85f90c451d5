#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "perf/scenario.hpp"

namespace psbench::perf {

/// The simulated machine: the host of each rank (servers first, then workers) and the shared disk.
struct SimPlatform {
  std::vector<simgrid::s4u::Host*> rank_hosts;  ///< host of world rank i
  simgrid::s4u::Disk* disk = nullptr;           ///< the file's storage, read by every worker
};

/// Host speed of every simulated core: times are turned into flops at this rate.
inline constexpr double kSimFlopsPerS = 1e9;

/// Builds the platform of scenario.platform for costs' ranks in the running Engine: `this` is one host with
/// the calibrated cores; `rack` one switch with a split-duplex link per node (the servers' nodes at the server
/// rate), each server alone on one of the first S nodes and the workers round-robin on the others, as the rack
/// sweep places them; `bluewaters` a 3D torus with
/// the job's nodes scattered at random (seeded), as jobs got them before topology-aware scheduling; an XML
/// file is loaded as it is and ranks fill its hosts in order, ranks_per_node to a host.
SimPlatform build_platform(const StepCosts& costs, const Scenario& scenario, std::uint64_t seed);

}  // namespace psbench::perf
