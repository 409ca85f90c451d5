#pragma once

namespace psbench::ps {

/// Roles computed once from ranks: in async mode ranks 0..S-1 are servers and the rest are workers;
/// in sync and local mode every rank is a worker.
struct Topology {
  int world_size = 1;  ///< ranks in the job
  int rank = 0;        ///< this rank
  int servers = 0;     ///< S; 0 in sync and local mode

  /// Async roles; throws UserError unless 1 <= servers < world_size.
  static Topology async(int world_size, int rank, int servers);
  /// Every rank a worker (sync allreduce, or local with world_size 1).
  static Topology all_workers(int world_size, int rank);

  /// True on a server rank.
  [[nodiscard]] bool is_server() const { return rank < servers; }
  /// W, the number of workers.
  [[nodiscard]] int workers() const { return world_size - servers; }
  /// This worker's index in [0, W), or -1 on a server.
  [[nodiscard]] int worker_index() const { return is_server() ? -1 : rank - servers; }
  /// World rank of worker i.
  [[nodiscard]] int worker_rank(int index) const { return servers + index; }
  /// The worker index of world rank rank (a worker's).
  [[nodiscard]] int worker_index_of(int rank) const { return rank - servers; }
  /// World rank of the server owning shard k.
  [[nodiscard]] int server_rank(int shard) const { return shard; }
};

}  // namespace psbench::ps
