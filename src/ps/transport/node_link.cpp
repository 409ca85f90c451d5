#include "ps/transport/node_link.hpp"

#include <algorithm>
#include <new>
#include <string>
#include <utility>

#include "common/check.hpp"
#include "common/error.hpp"

namespace psbench::ps {
namespace {

constexpr std::size_t round_up(std::size_t bytes) {
  constexpr std::size_t kPage = mpi::SharedWindow::kAlignment;
  return (bytes + kPage - 1) / kPage * kPage;
}

// Where a worker's segment keeps its parts: S mailboxes, then the gradients, the parameter area and the packed
// gradient, each on a page boundary.
struct WorkerSegment {
  std::size_t gradients_at = 0;
  std::size_t parameters_at = 0;
  std::size_t packed_at = 0;
  std::size_t bytes = 0;

  WorkerSegment(int servers, std::size_t parameters, std::size_t packed_words)
      : gradients_at(round_up(static_cast<std::size_t>(servers) * sizeof(Mailbox))),
        parameters_at(gradients_at + round_up(parameters * sizeof(float))),
        packed_at(parameters_at + round_up(parameters * sizeof(float))),
        bytes(packed_at + round_up(packed_words * sizeof(std::uint32_t))) {}
};

}  // namespace

NodeLink::NodeLink(const mpi::Communicator& world, mpi::Communicator node, const Topology& topology,
                   std::size_t parameters, std::size_t packed_words)
    : node_(std::move(node)) {
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "mailboxes need address-free atomics");
  const std::vector<int> world_ranks = world.ranks_of(node_);
  const auto is_server = [&](int rank) { return rank < topology.servers; };
  const bool servers_here = std::any_of(world_ranks.begin(), world_ranks.end(), is_server);
  const bool workers_here = !std::all_of(world_ranks.begin(), world_ranks.end(), is_server);
  const WorkerSegment worker_segment(topology.servers, parameters, packed_words);
  std::size_t bytes = 0;
  if (topology.is_server() && workers_here) bytes = round_up(sizeof(Doorbell));
  if (!topology.is_server() && servers_here) bytes = worker_segment.bytes;
  try {
    window_.emplace(node_, bytes);
  } catch (const SystemError& error) {
    throw SystemError(std::string(error.what()) + " while sharing " + std::to_string(bytes) +
                      " bytes with this node's ranks (is /dev/shm large enough?); --intra-node messages "
                      "needs no shared window");
  }

  const std::span<std::byte> own = window_->segment(node_.rank());
  PSBENCH_CHECK(own.size() >= bytes) << "shared segment of " << own.size() << " bytes, asked for " << bytes;
  if (bytes > 0 && topology.is_server()) {
    own_doorbell_ = new (own.data()) Doorbell();
  } else if (bytes > 0) {
    for (int k = 0; k < topology.servers; ++k) {
      new (own.data() + static_cast<std::size_t>(k) * sizeof(Mailbox)) Mailbox();
    }
    gradients_ = {new (own.data() + worker_segment.gradients_at) float[parameters](), parameters};
    parameters_ = {new (own.data() + worker_segment.parameters_at) float[parameters](), parameters};
    if (packed_words > 0)
      packed_ = {new (own.data() + worker_segment.packed_at) std::uint32_t[packed_words](), packed_words};
  }
  node_.barrier();  // every mailbox and doorbell is constructed before another rank looks at it

  for (int r = 0; r < node_.size(); ++r) {
    const int rank = world_ranks[static_cast<std::size_t>(r)];
    if (r == node_.rank() || is_server(rank) == topology.is_server()) continue;
    const std::span<std::byte> segment = window_->segment(r);
    if (topology.is_server()) {
      PSBENCH_CHECK(segment.size() >= worker_segment.bytes) << "worker " << rank << " shares no segment";
      LocalWorker worker;
      worker.world_rank = rank;
      worker.mailbox = std::launder(reinterpret_cast<Mailbox*>(segment.data()) + topology.rank);
      worker.gradients = std::launder(reinterpret_cast<const float*>(segment.data() + worker_segment.gradients_at));
      worker.parameters = std::launder(reinterpret_cast<float*>(segment.data() + worker_segment.parameters_at));
      worker.packed = std::launder(reinterpret_cast<const std::uint32_t*>(segment.data() + worker_segment.packed_at));
      mpi::map_in(segment.subspan(0, worker_segment.bytes));  // the first update runs at full speed
      local_workers_.push_back(worker);
    } else {
      if (mailboxes_.empty()) {
        mailboxes_.assign(static_cast<std::size_t>(topology.servers), nullptr);
        doorbells_.assign(static_cast<std::size_t>(topology.servers), nullptr);
      }
      PSBENCH_CHECK(segment.size() >= sizeof(Doorbell)) << "server " << rank << " shares no segment";
      const auto slot = static_cast<std::size_t>(rank);  // server rank k owns shard k
      mailboxes_[slot] = std::launder(reinterpret_cast<Mailbox*>(own.data()) + rank);
      doorbells_[slot] = std::launder(reinterpret_cast<Doorbell*>(segment.data()));
    }
  }
}

Mailbox* NodeLink::mailbox(int shard) const {
  return mailboxes_.empty() ? nullptr : mailboxes_[static_cast<std::size_t>(shard)];
}

Doorbell* NodeLink::doorbell(int shard) const {
  return doorbells_.empty() ? nullptr : doorbells_[static_cast<std::size_t>(shard)];
}

}  // namespace psbench::ps
