#pragma once

#include <cstddef>

#include "mpi/communicator.hpp"
#include "saturation_summary.hpp"

namespace psbench::bench {

/// One closed-loop measurement: k clients, each pushing P values to S servers, waiting for its fresh
/// shards and sleeping think_us, for seconds (the first warmup_seconds not counted).
struct PointSpec {
  int servers = 1;              ///< S
  int most_servers = 1;         ///< world ranks 0..most_servers-1 are server slots, the rest client slots
  std::size_t parameters = 0;   ///< P
  double think_us = 0.0;        ///< Z, slept by each client between exchanges
  int clients = 1;              ///< k
  double seconds = 0.25;        ///< length of the loop
  double warmup_seconds = 0.0;  ///< its start, left out of every figure
  bool shared = false;          ///< clients reach the servers through the node's shared window
};

/// A point's figures (on world rank 0; zeros elsewhere), and at k = 1 the spread of D.
struct PointResult {
  SaturationPoint point;           ///< what the point measured
  double service_cv = 0.0;         ///< coefficient of variation of the service time per update (k = 1 only)
  double window_huge_share = 0.0;  ///< shared path: share of the servers' mapping of the clients' segments on
                                   ///< 2 MiB pages (mpi::huge_page_share)
};

/// Collective over world: runs the point with psbench's own ps::Server and ps::WorkerClient on the ranks
/// it needs; the others sleep in a barrier.
PointResult run_point(const mpi::Communicator& world, const PointSpec& spec);

}  // namespace psbench::bench
