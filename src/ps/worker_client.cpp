#include "ps/worker_client.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "compress/onebit.hpp"
#include "mpi/backoff_wait.hpp"
#include "ps/protocol_error.hpp"
#include "ps/stall_watch.hpp"
#include "ps/transport/final_shard.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/server_transports.hpp"

namespace psbench::ps {
namespace {

std::string server_name(const Topology& topology, int shard) {
  return "parameter server " + std::to_string(shard) + " (rank " + std::to_string(topology.server_rank(shard)) + ")";
}

}  // namespace

WorkerClient::WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
                           Links links, bool pipeline, ProtocolSettings settings)
    : comm_(world.duplicate()),
      topology_(topology),
      layout_(layout),
      settings_(settings),
      versions_(static_cast<std::size_t>(topology.servers), 0),
      pushed_versions_(static_cast<std::size_t>(topology.servers), 0),
      shard_words_(static_cast<std::size_t>(topology.servers) + 1, 0),
      pipeline_(pipeline),
      send_buffer_(0),
      reply_buffer_(0),
      computed_versions_(static_cast<std::size_t>(topology.servers), 0) {
  PSBENCH_CHECK(!topology.is_server()) << "rank " << topology.rank << " is a server, not a worker";
  PSBENCH_CHECK(layout.shards() == topology.servers)
      << layout.shards() << " shards for " << topology.servers << " servers";
  paths_ = make_server_paths(comm_, topology, layout, links);
  if (links.window != nullptr) shared_parameters_ = links.window->parameters();
  all_sleep_ = std::ranges::all_of(paths_, [](const auto& path) { return path->reply_counter() != nullptr; });
  if (pipeline && !std::ranges::all_of(paths_, [](const auto& path) { return path->copies_push(); })) {
    // Indexed like the parameters; only the ranges of the paths that read the caller's memory are used.
    send_buffer_ = AlignedBuffer(layout.parameters());
    reply_buffer_ = AlignedBuffer(layout.parameters());
  }
}

void WorkerClient::compress_pushes(compress::ColumnLayout columns, bool error_feedback) {
  PSBENCH_CHECK(columns.values() == layout_.parameters())
      << "columns over " << columns.values() << " values for " << layout_.parameters() << " parameters";
  for (int k = 0; k <= topology_.servers; ++k) {
    const std::size_t begin = k < topology_.servers ? layout_.begin(k) : layout_.parameters();
    shard_words_[static_cast<std::size_t>(k)] = columns.words_before(begin);  // no column straddles a shard's start
  }
  packed_.assign(columns.words(), 0);
  residual_ = AlignedBuffer(error_feedback ? columns.values() : 0);
  columns_.emplace(std::move(columns));
}

void WorkerClient::push_pull(std::span<const float> gradients, std::span<float> parameters, const PushHeader& step,
                             PhaseTimer& timer) {
  PSBENCH_CHECK(gradients.size() == layout_.parameters() && parameters.size() == layout_.parameters())
      << "vectors of " << gradients.size() << " and " << parameters.size() << " values for a layout of "
      << layout_.parameters();
  PSBENCH_CHECK(!in_flight_) << "push_pull with a pipelined exchange in flight";
  quantize(gradients, timer);
  const double start_time = monotonic_seconds();
  // Paths read the gradients in place and land the replies in the parameters where they can: no copy.
  start(gradients, gradients, parameters, versions_, step);
  wait(start_time, [&](ServerPath& path) { return path.take_reply(parameters); });
  take_replies();
  const double end = monotonic_seconds();
  const double pushed = std::max(pushed_at_, start_time);
  timer.add(Phase::kPush, pushed - start_time);
  timer.add(Phase::kPull, end - pushed);
  timing_.wall_s += end - start_time;
  timing_.wait_s += end - start_time;
}

void WorkerClient::push_pull_pipelined(std::span<const float> gradients, std::span<float> parameters,
                                       const PushHeader& step, PhaseTimer& timer, bool in_place) {
  PSBENCH_CHECK(pipeline_) << "push_pull_pipelined on a client built without the pipeline";
  PSBENCH_CHECK(gradients.size() == layout_.parameters() && parameters.size() == layout_.parameters())
      << "vectors of " << gradients.size() << " and " << parameters.size() << " values for a layout of "
      << layout_.parameters();
  // The gradient was computed from the weights in parameters now, before the replies in flight replace them.
  std::ranges::copy(versions_, computed_versions_.begin());
  complete(parameters, timer);
  if (std::ranges::find(versions_, kAbortedVersion) != versions_.end()) return;  // the run is stopping
  quantize(gradients, timer);
  const double start_time = monotonic_seconds();
  for (int k = 0; k < topology_.servers && !in_place && !columns_; ++k) {  // a path that reads in place: a copy
    if (paths_[static_cast<std::size_t>(k)]->copies_push()) continue;
    const auto begin = static_cast<std::ptrdiff_t>(layout_.begin(k));
    std::copy_n(gradients.begin() + begin, layout_.size(k), send_buffer_.span().begin() + begin);
  }
  const std::span<const float> sources = in_place || send_buffer_.span().empty() ? gradients : send_buffer_.span();
  start(gradients, sources, reply_buffer_.span(), computed_versions_, step);
  // Where the model computes its gradients in the window itself, its next backward pass would overwrite the
  // gradient a local server is still reading: unless the caller releases the gradients before that pass
  // (in place), those replies are awaited here. Either way they stay where they landed until the next step takes
  // them, so that every push still carries the versions one step older.
  const double posted = monotonic_seconds();
  const auto released = [&](ServerPath& path) {
    path.progress();  // the other paths' messages move meanwhile; they are not awaited here
    return !path.reads(gradients.data());
  };
  if (!in_place) wait(start_time, released);
  gradients_held_ = in_place ? gradients.data() : nullptr;
  const double end = monotonic_seconds();
  timer.add(Phase::kPush, posted - start_time);
  timer.add(Phase::kPull, end - posted);
  timing_.wait_s += end - start_time;
  started_at_ = start_time;
  in_flight_ = true;
}

void WorkerClient::release_gradients(PhaseTimer& timer) {
  if (!in_flight_ || gradients_held_ == nullptr) return;
  const double start = monotonic_seconds();
  wait(start, [&](ServerPath& path) {
    path.progress();
    return !path.reads(gradients_held_);
  });
  const double end = monotonic_seconds();
  timer.add(Phase::kPush, end - start);
  timing_.wait_s += end - start;
  gradients_held_ = nullptr;
}

void WorkerClient::complete(std::span<float> parameters, PhaseTimer& timer) {
  if (!in_flight_) return;
  PSBENCH_CHECK(parameters.size() == layout_.parameters())
      << parameters.size() << " values for a layout of " << layout_.parameters();
  PSBENCH_CHECK(shared_parameters_.empty() ||
                (parameters.data() + parameters.size() <= shared_parameters_.data() ||
                 shared_parameters_.data() + shared_parameters_.size() <= parameters.data()))
      << "a pipelined exchange's parameters overlap the reply area its servers write into";
  const double wait_start = monotonic_seconds();
  wait(wait_start, [&](ServerPath& path) { return path.take_reply(parameters); });
  take_replies();
  const double end = monotonic_seconds();
  timer.add(Phase::kPull, end - wait_start);
  timing_.wall_s += end - started_at_;
  timing_.wait_s += end - wait_start;
  in_flight_ = false;
  gradients_held_ = nullptr;  // every push has left and every reply is in
}

void WorkerClient::quantize(std::span<const float> gradients, PhaseTimer& timer) {
  if (!columns_) return;
  const ScopedPhase compress(timer, Phase::kCompress);
  compress::quantize_onebit(*columns_, gradients, residual_.span(), packed_);
}

void WorkerClient::start(std::span<const float> gradients, std::span<const float> sources, std::span<float> replies,
                         std::span<const std::uint64_t> versions, const PushHeader& step) {
  pushed_at_ = 0.0;
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    PushHeader header = step;
    header.kind = PushKind::kGradient;
    header.version = versions[slot];
    pushed_versions_[slot] = versions[slot];
    const std::size_t words = columns_ ? shard_words_[slot + 1] - shard_words_[slot] : 0;
    const std::span<const std::uint32_t> packed =
        std::span<const std::uint32_t>(packed_).subspan(columns_ ? shard_words_[slot] : 0, words);
    traffic_.sent += sizeof(PushHeader) + (columns_ ? words * sizeof(std::uint32_t) : layout_.size(k) * sizeof(float));
    traffic_.received += sizeof(PullHeader) + layout_.size(k) * sizeof(float);
    ServerPath& path = *paths_[slot];
    path.start(header, path.copies_push() ? gradients : sources, packed, shard_words_[slot], replies);
  }
}

bool WorkerClient::all_pushed() {
  if (pushed_at_ > 0.0) return true;
  if (!std::ranges::all_of(paths_, [](const auto& path) { return path->pushed(); })) return false;
  pushed_at_ = monotonic_seconds();
  return true;
}

template <typename Done>
void WorkerClient::wait(double start, Done&& done) {
  const double timeout = settings_.reply_timeout_s();
  const auto watch = [&] {
    const double waited = monotonic_seconds() - start;
    if (timeout <= 0.0 || waited < timeout) return;
    for (int k = 0; k < topology_.servers; ++k) {
      if (!paths_[static_cast<std::size_t>(k)]->replied()) {
        throw PeerStalled(
            silent_server_message(topology_.rank, k, topology_.server_rank(k), waited, settings_.stall_timeout_s));
      }
    }
    throw PeerStalled(
        silent_server_message(topology_.rank, 0, topology_.server_rank(0), waited, settings_.stall_timeout_s));
  };
  if (all_sleep_ && settings_.spin_budget.count() == 0) {
    // Nothing travels by message: each path is awaited in turn, asleep in the kernel between looks.
    (void)all_pushed();
    for (const auto& path : paths_) {
      mpi::wait_on_counter(
          settings_.spin_budget, *path->reply_counter(), [&] { return done(*path); }, watch);
    }
    return;
  }
  int polls = 0;
  mpi::wait_with_backoff(settings_.spin_budget, [&] {
    bool finished = true;
    for (const auto& path : paths_) finished = done(*path) && finished;
    (void)all_pushed();
    if (!finished && ++polls % kPollsPerStallCheck == 0) watch();
    return finished;
  });
}

void WorkerClient::take_replies() {
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    const auto malformed = [&](const std::string& what) {
      return ProtocolError("worker rank " + std::to_string(topology_.rank) + " received a malformed reply from " +
                           server_name(topology_, k) + ": " + what);
    };
    std::uint64_t version = 0;
    try {
      version = paths_[slot]->reply_version();
    } catch (const ProtocolError& error) {
      throw malformed(error.what());
    }
    if (version <= pushed_versions_[slot]) {
      throw malformed("shard version " + std::to_string(version) + " after pushing from version " +
                      std::to_string(pushed_versions_[slot]) + " (a reply must be newer than the push)");
    }
    versions_[slot] = version;
  }
}

void WorkerClient::progress() {
  if (!in_flight_) return;
  for (const auto& path : paths_) path->progress();
}

bool WorkerClient::awaiting_messages() const {
  return in_flight_ && !std::ranges::all_of(paths_, [](const auto& path) { return path->pushed() && path->replied(); });
}

void WorkerClient::finish(PushKind kind) {
  PSBENCH_CHECK(!in_flight_) << "finish with a pipelined exchange in flight: complete it first";
  PushHeader done;
  done.kind = kind;
  traffic_.sent += static_cast<std::uint64_t>(topology_.servers) * sizeof(PushHeader);
  for (const auto& path : paths_) path->finish(done);
}

void WorkerClient::receive_final_shards(std::span<float> parameters) {
  PSBENCH_CHECK(parameters.size() == layout_.parameters()) << parameters.size() << " values for the final shards";
  ps::receive_final_shards(comm_, topology_, layout_, parameters, settings_.spin_budget);
  traffic_.received += parameters.size() * sizeof(float);
}

}  // namespace psbench::ps
