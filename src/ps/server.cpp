#include "ps/server.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "common/phase_timer.hpp"
#include "compress/onebit.hpp"
#include "mpi/backoff_wait.hpp"
#include "ps/protocol.hpp"
#include "ps/transport/final_shard.hpp"

namespace psbench::ps {
namespace {

// Values at the start of a shard that a server claims for writing while chunk 0 of a push arrives.
constexpr std::size_t kPrefetchValues = 4096;  // 16 KiB: a small shard whole, well inside L1 and L2
constexpr std::size_t kValuesPerLine = 64 / sizeof(float);

// Starts moving values' cache lines into this core's cache, for writing, without waiting for them.
void prefetch_for_write(std::span<const float> values) {
  for (std::size_t i = 0; i < values.size(); i += kValuesPerLine) __builtin_prefetch(values.data() + i, 1, 3);
}

// Per-epoch totals of the pushes seen so far; an epoch is reported once every worker has finished it.
struct EpochTally {
  double loss_sum = 0.0;
  std::uint64_t steps = 0;
  std::uint64_t samples = 0;
  int workers_finished = 0;
};

void tally_step(std::vector<EpochTally>& tallies, const PushHeader& header, int workers, const ServerStats& stats,
                const std::function<void(const EpochProgress&)>& on_epoch) {
  if (header.epoch >= tallies.size()) tallies.resize(header.epoch + 1);  // once per epoch, not per step
  EpochTally& tally = tallies[header.epoch];
  tally.loss_sum += header.loss;
  tally.steps += 1;
  tally.samples += header.samples;
  if (header.last_of_epoch == 0) return;
  tally.workers_finished += 1;
  if (tally.workers_finished == workers && on_epoch) {
    on_epoch(EpochProgress{header.epoch, tally.loss_sum / static_cast<double>(tally.steps), tally.samples,
                           monotonic_seconds(), stats.service_seconds, stats.idle_seconds, stats.updates});
  }
}

}  // namespace

Server::Server(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
               std::span<const float> initial_parameters, SgdConfig config, Links links,
               std::optional<float> delay_compensation, ProtocolSettings settings)
    : comm_(world.duplicate()),
      topology_(topology),
      settings_(settings),
      validator_(topology),
      own_weights_(layout.size(topology.rank)),
      weights_(own_weights_.span()),
      transports_(make_server_transports(comm_, topology, layout, links, validator_, settings.spin_budget)),
      optimizer_(layout.size(topology.rank), config),
      gate_(static_cast<std::size_t>(topology.workers()), settings.staleness_bound),
      compensate_(delay_compensation.has_value()),
      lambda_(delay_compensation.value_or(0.0F)),
      sent_storage_(delay_compensation ? static_cast<std::size_t>(topology.workers()) * layout.size(topology.rank)
                                       : 0) {
  PSBENCH_CHECK(topology.is_server()) << "rank " << topology.rank << " is not a server";
  PSBENCH_CHECK(initial_parameters.size() == layout.parameters()) << "initial parameters do not match the layout";
  const auto first = initial_parameters.begin() + static_cast<std::ptrdiff_t>(layout.begin(topology.rank));
  std::copy(first, first + static_cast<std::ptrdiff_t>(weights_.size()), weights_.begin());
  // Every worker starts from the initial parameters: that is the first copy each one holds.
  for (int w = 0; compensate_ && w < topology.workers(); ++w) {
    std::ranges::copy(weights_, sent_copy(static_cast<std::size_t>(w)).begin());
  }
}

void Server::apply_chunk(std::size_t worker, std::size_t offset, std::span<const float> gradients, bool refresh,
                         std::span<float> copy) {
  const std::span<float> weights = weights_.subspan(offset, gradients.size());
  if (compensate_) {
    optimizer_.apply_compensated_slice(weights, gradients, offset, sent_copy(worker).subspan(offset, gradients.size()),
                                       lambda_, refresh, copy);
  } else if (copy.empty()) {
    optimizer_.apply_slice(weights, gradients, offset);
  } else {
    optimizer_.apply_slice_into(weights, gradients, offset, copy);
  }
}

void Server::take_compressed_pushes(compress::ColumnLayout columns, std::size_t first_word) {
  PSBENCH_CHECK(columns.values() == weights_.size())
      << "columns over " << columns.values() << " values for a shard of " << weights_.size();
  dequantized_ = AlignedBuffer(weights_.size());
  first_word_ = first_word;
  columns_.emplace(std::move(columns));
}

void Server::resume(std::span<const float> velocity, std::span<const std::uint32_t> worker_epochs) {
  optimizer_.restore_velocity(velocity);
  validator_.start_at(worker_epochs);
}

ServerStats Server::serve(const std::function<void(const EpochProgress&)>& on_epoch) {
  ServerStats stats;
  stats.held_seconds_by_worker.assign(static_cast<std::size_t>(topology_.workers()), 0.0);
  std::vector<EpochTally> tallies;
  const double serve_start = monotonic_seconds();
  SilenceWatch watch(topology_, serve_start, settings_.stall_timeout_s);
  const auto release_allowed = [&] { gate_.release_allowed(stopping_, stats, [&](std::size_t w) { release(w); }); };
  int workers_done = 0;
  while (workers_done < topology_.workers()) {
    const double wait_start = monotonic_seconds();
    const int source = wait_for_push(watch);
    const double arrived = monotonic_seconds();
    stats.idle_seconds += arrived - wait_start;
    gate_.note_arrival(stopping_, stats);
    const PushHeader header = take_header(source);
    watch.heard(source, arrived);
    const auto worker = static_cast<std::size_t>(source - topology_.servers);
    if (header.kind != PushKind::kGradient) {
      stopping_ = stopping_ || header.kind == PushKind::kAbort;
      watch.finished(source);
      gate_.finished(worker);
      ++workers_done;
      if (gate_.bounded()) {  // a worker done no longer holds anyone back; an abort releases everything
        release_allowed();
        stats.service_seconds += monotonic_seconds() - arrived;
      }
      continue;
    }
    gate_.count_push(worker, stats);
    if (stopping_) {  // take the gradient in and answer kAbortedVersion, so that the worker stops too
      serve_push(source, stats, true);
      if (push_observer_) push_observer_(source, header);
      continue;
    }
    const bool hold = gate_.must_hold(worker);
    stats.staleness.record(version_ - header.version);
    ++version_;
    serve_push(source, stats, !hold);
    if (hold) {
      gate_.hold(worker, monotonic_seconds(), stats);
    } else {
      gate_.note_sent(worker, stats);
    }
    ++stats.updates;
    release_allowed();  // this push may have been the slowest worker's
    stats.service_seconds += monotonic_seconds() - arrived;
    tally_step(tallies, header, topology_.workers(), stats, on_epoch);
    if (push_observer_) push_observer_(source, header);
    if (update_hook_) update_hook_(stats.updates);
  }
  stats.serve_seconds = monotonic_seconds() - serve_start;
  return stats;
}

PushHeader Server::take_header(int source) {
  PushHeader header;
  const std::size_t bytes = arrived_via_->take_header(source, header);  // not yet known to come from a worker
  if (bytes != sizeof header) validator_.check_envelope(source, bytes);
  validator_.accept(source, header, reply_version());  // stopping: any version
  return header;
}

void Server::serve_push(int source, ServerStats& stats, bool answer) {
  ServerTransport& transport = transports_.of(source);
  const auto worker = static_cast<std::size_t>(source - topology_.servers);
  const int chunks = chunk_count(weights_.size());
  if (columns_) {  // the whole gradient at once, dequantized before the chunk loop
    const std::span<const std::uint32_t> packed = transport.packed_push(source, first_word_, columns_->words());
    const double start = monotonic_seconds();
    compress::dequantize_onebit(*columns_, packed, dequantized_.span());
    stats.compress_seconds += monotonic_seconds() - start;
  }
  if (answer) transport.begin_reply(source, reply_version());
  // The worker's copy of the last reply took the shard's lines to its core: claiming the first ones back
  // while chunk 0 arrives keeps a small shard's update from waiting on them.
  prefetch_for_write(weights_.first(std::min(weights_.size(), kPrefetchValues)));
  for (int c = 0; c < chunks; ++c) {
    const auto [offset, count] = chunk_span(weights_.size(), c);
    const std::span<const float> gradient =
        columns_ ? dequantized_.span().subspan(offset, count) : transport.gradient_chunk(source, c);
    const std::span<float> area = answer ? transport.reply_area(source, c) : std::span<float>();
    const double apply_start = monotonic_seconds();
    if (!stopping_) {
      apply_chunk(worker, offset, gradient, answer, area);
    } else if (!area.empty()) {
      std::copy_n(weights_.begin() + static_cast<std::ptrdiff_t>(offset), count, area.begin());
    }
    stats.apply_seconds += monotonic_seconds() - apply_start;
    if (answer) transport.chunk_done(source, c, weights_.subspan(offset, count));
  }
  if (answer) transport.reply_done(source);
}

void Server::release(std::size_t worker) {
  const int source = topology_.worker_rank(static_cast<int>(worker));
  ServerTransport& transport = transports_.of(source);
  if (compensate_) std::ranges::copy(weights_, sent_copy(worker).begin());  // what the worker gets now
  transport.begin_reply(source, reply_version());
  for (int c = 0; c < chunk_count(weights_.size()); ++c) {
    const auto [offset, count] = chunk_span(weights_.size(), c);
    const std::span<float> area = transport.reply_area(source, c);
    if (!area.empty()) std::copy_n(weights_.begin() + static_cast<std::ptrdiff_t>(offset), count, area.begin());
    transport.chunk_done(source, c, weights_.subspan(offset, count));
  }
  transport.reply_done(source);
}

void Server::send_final_shard(int worker_rank) {
  ps::send_final_shard(comm_, worker_rank, weights_, settings_.spin_budget);
}

int Server::wait_for_push(const SilenceWatch& watch) {
  std::vector<std::unique_ptr<ServerTransport>>& all = transports_.all;
  int source = -1;
  const auto poll = [&] {
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::size_t t = (next_transport_ + i) % all.size();
      source = all[t]->poll_push();
      if (source >= 0) {
        arrived_via_ = all[t].get();
        next_transport_ = t + 1;  // the others first next time
        return true;
      }
    }
    return false;
  };
  mpi::WakeCounter* doorbell = all.size() == 1 ? all.front()->doorbell() : nullptr;
  if (doorbell != nullptr && settings_.spin_budget.count() == 0) {
    // One transport with a doorbell serves every worker: nothing else arrives, so an idle server may sleep on it.
    mpi::wait_on_counter(settings_.spin_budget, *doorbell, poll, [&] { watch.check(monotonic_seconds()); });
    return source;
  }
  int polls = 0;
  mpi::wait_with_backoff(settings_.spin_budget, [&] {
    if (poll()) return true;
    if (++polls % kPollsPerStallCheck == 0) watch.check(monotonic_seconds());
    return false;
  });
  return source;
}

}  // namespace psbench::ps
