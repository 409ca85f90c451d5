#include "ps/topology.hpp"

#include <string>

#include "common/error.hpp"

namespace psbench::ps {

Topology Topology::async(int world_size, int rank, int servers) {
  if (world_size < 2) {
    throw UserError("--mode async needs at least 2 ranks (1 server and 1 worker), got " + std::to_string(world_size) +
                    "; run under mpirun -np N with N >= 2, or use --mode local");
  }
  if (servers < 1 || servers >= world_size) {
    throw UserError("--servers " + std::to_string(servers) + " must be at least 1 and below the " +
                    std::to_string(world_size) + " ranks, so that at least one worker remains");
  }
  return Topology{world_size, rank, servers};
}

Topology Topology::all_workers(int world_size, int rank) { return Topology{world_size, rank, 0}; }

}  // namespace psbench::ps
