#include "ps/server.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "common/phase_timer.hpp"
#include "compress/onebit.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "ps/protocol.hpp"
#include "ps/protocol_error.hpp"

namespace psbench::ps {
namespace {

// Values at the start of a shard that a server claims for writing while chunk 0 of a push arrives.
constexpr std::size_t kPrefetchValues = 4096;  // 16 KiB: a small shard whole, well inside L1 and L2
constexpr std::size_t kValuesPerLine = 64 / sizeof(float);

// Starts moving values' cache lines into this core's cache, for writing, without waiting for them.
void prefetch_for_write(std::span<const float> values) {
  for (std::size_t i = 0; i < values.size(); i += kValuesPerLine) __builtin_prefetch(values.data() + i, 1, 3);
}

// Slots of a server's receive ring (protocol.hpp's ring_chunks) as a count of buffers.
std::size_t ring_slots(std::size_t shard_size) { return static_cast<std::size_t>(ring_chunks(shard_size)); }

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
               std::span<const float> initial_parameters, SgdConfig config, const NodeLink* link,
               std::optional<float> delay_compensation)
    : comm_(world.duplicate()),
      topology_(topology),
      validator_(topology),
      own_weights_(layout.size(topology.rank)),
      weights_(own_weights_.span()),
      gradient_(std::min(layout.size(topology.rank), ring_slots(layout.size(topology.rank)) * kChunkValues)),
      chunk_receives_(ring_slots(layout.size(topology.rank)), "a server's chunk receives"),
      chunk_sends_(static_cast<std::size_t>(chunk_count(layout.size(topology.rank))), "a server's chunk sends"),
      shard_begin_(layout.begin(topology.rank)),
      optimizer_(layout.size(topology.rank), config),
      clocks_(static_cast<std::size_t>(topology.workers()), 0),
      done_(static_cast<std::size_t>(topology.workers()), 0),
      held_(static_cast<std::size_t>(topology.workers()), 0),
      held_arrival_(static_cast<std::size_t>(topology.workers())),
      held_since_(static_cast<std::size_t>(topology.workers()), 0.0),
      compensate_(delay_compensation.has_value()),
      lambda_(delay_compensation.value_or(0.0F)),
      sent_storage_(delay_compensation ? static_cast<std::size_t>(topology.workers()) * layout.size(topology.rank)
                                       : 0) {
  PSBENCH_CHECK(topology.is_server()) << "rank " << topology.rank << " is not a server";
  PSBENCH_CHECK(initial_parameters.size() == layout.parameters()) << "initial parameters do not match the layout";
  if (link != nullptr) {
    local_ = link->local_workers();
    doorbell_ = link->own_doorbell();
  }
  const auto first = initial_parameters.begin() + static_cast<std::ptrdiff_t>(layout.begin(topology.rank));
  std::copy(first, first + static_cast<std::ptrdiff_t>(weights_.size()), weights_.begin());
  served_.assign(local_.size(), 0);
  // Every worker starts from the initial parameters: that is the first copy each one holds.
  for (std::size_t w = 0; compensate_ && w < clocks_.size(); ++w) std::ranges::copy(weights_, sent_copy(w).begin());
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

void Server::take_compressed_pushes(compress::ColumnLayout columns) {
  PSBENCH_CHECK(columns.values() == weights_.size())
      << "columns over " << columns.values() << " values for a shard of " << weights_.size();
  PSBENCH_CHECK(local_.empty()) << "compressed pushes travel by messages, not through a node's shared window";
  packed_.assign(columns.words(), 0);
  dequantized_ = AlignedBuffer(weights_.size());
  columns_.emplace(std::move(columns));
}

void Server::receive_compressed(int source, ServerStats& stats) {
  PSBENCH_MPI_CALL(MPI_Irecv(packed_.data(), static_cast<int>(packed_.size()), MPI_UINT32_T, source, kTagPushData,
                             comm_.native(), chunk_receives_.at(0)));
  wait_for_chunk(source, 0, 0, packed_.size());  // a word is as long as a float
  const double start = monotonic_seconds();
  compress::dequantize_onebit(*columns_, packed_, dequantized_.span());
  stats.compress_seconds += monotonic_seconds() - start;
}

void Server::resume(std::span<const float> velocity, std::span<const std::uint32_t> worker_epochs) {
  optimizer_.restore_velocity(velocity);
  validator_.start_at(worker_epochs);
}

ServerStats Server::serve(const std::function<void(const EpochProgress&)>& on_epoch) {
  ServerStats stats;
  stats.held_seconds_by_worker.assign(clocks_.size(), 0.0);
  std::vector<EpochTally> tallies;
  const double serve_start = monotonic_seconds();
  SilenceWatch watch(topology_, serve_start);
  int workers_done = 0;
  while (workers_done < topology_.workers()) {
    const double wait_start = monotonic_seconds();
    const Arrival arrival = wait_for_push(watch);
    const double arrived = monotonic_seconds();
    stats.idle_seconds += arrived - wait_start;
    if (bound_ >= 0) note_overdue_holds(stats);
    const PushHeader header = receive_header(arrival);
    watch.heard(arrival.source, arrived);
    const auto worker = static_cast<std::size_t>(arrival.source - topology_.servers);
    if (header.kind != PushKind::kGradient) {
      stopping_ = stopping_ || header.kind == PushKind::kAbort;
      watch.finished(arrival.source);
      done_[worker] = 1;
      ++workers_done;
      if (bound_ >= 0) {  // a worker done no longer holds anyone back; an abort releases everything
        release_allowed(stats);
        stats.service_seconds += monotonic_seconds() - arrived;
      }
      continue;
    }
    ++clocks_[worker];
    note_spread(stats);
    // Bounded staleness (SSP). The push is applied now; its reply waits while this worker's clock c (counting
    // this push) is more than bound_ ahead of the slowest worker not done. What that gives the staleness
    // histogram, per server (each server sees every worker's every push, so each one keeps the bound alone):
    //   Without --pipeline, worker w's push c+1 carries the version V of the reply to its push c, released at a
    //   moment when every other worker u had clock >= c - s. Its staleness counts the pushes of the others
    //   applied from that release to the arrival of push c+1. Meanwhile w's clock is c, so the slowest clock is
    //   <= c; u's push k needs the reply to its push k - 1, released only once the slowest is >= k - 1 - s, so
    //   k <= c + s + 1. Hence u makes at most (c + s + 1) - (c - s) = 2s + 1 of them, and
    //       staleness <= (2s + 1)(W - 1)    (W - 1 at s = 0: bulk-synchronous through the servers).
    //   It is reached: the others all at c - s when w's reply goes out, then each running up to c + s + 1.
    //   With --pipeline, push c+1 carries the version of the reply to push c - 1 (released with the others at
    //   >= c - 1 - s), and w's own push c lands in between as well: at most (2s + 2) of each other worker's and 1
    //   of its own, staleness <= (2s + 2)(W - 1) + 1 (2W - 1 at s = 0, the unbounded pipeline's round-robin
    //   figure). The clocks, measured right after each push: max - min <= s + 1 (the pusher's reply is then held
    //   when it is s + 1 ahead), and a reply goes out only while its worker leads the slowest by <= s.
    const bool hold = bound_ >= 0 && !stopping_ && clocks_[worker] > min_clock() + static_cast<std::uint64_t>(bound_);
    if (stopping_) {  // take the gradient in and answer kAbortedVersion, so that the worker stops too
      reply(arrival, stats, true);
      if (push_observer_) push_observer_(arrival.source, header);
      continue;
    }
    stats.staleness.record(version_ - header.version);
    ++version_;
    reply(arrival, stats, !hold);
    if (hold) {
      held_[worker] = 1;
      held_arrival_[worker] = arrival;
      held_since_[worker] = monotonic_seconds();
      ++stats.held_replies;
      stats.min_held_lead = std::min(stats.min_held_lead, clocks_[worker] - std::min(min_clock(), clocks_[worker]));
    } else {
      stats.max_lead = std::max(stats.max_lead, clocks_[worker] - std::min(min_clock(), clocks_[worker]));
    }
    ++stats.updates;
    if (bound_ >= 0) release_allowed(stats);  // this push may have been the slowest worker's
    stats.service_seconds += monotonic_seconds() - arrived;
    tally_step(tallies, header, topology_.workers(), stats, on_epoch);
    if (push_observer_) push_observer_(arrival.source, header);
    if (update_hook_) update_hook_(stats.updates);
  }
  stats.serve_seconds = monotonic_seconds() - serve_start;
  return stats;
}

std::uint64_t Server::min_clock() const {
  std::uint64_t slowest = UINT64_MAX;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (done_[w] == 0) slowest = std::min(slowest, clocks_[w]);
  }
  return slowest;
}

void Server::note_overdue_holds(ServerStats& stats) const {
  const std::uint64_t slowest = min_clock();
  for (std::size_t w = 0; w < held_.size(); ++w) {
    if (held_[w] != 0 && (stopping_ || clocks_[w] <= slowest + static_cast<std::uint64_t>(bound_))) {
      ++stats.overdue_holds;
    }
  }
}

void Server::note_spread(ServerStats& stats) const {
  std::uint64_t slowest = UINT64_MAX;
  std::uint64_t fastest = 0;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (done_[w] != 0) continue;
    slowest = std::min(slowest, clocks_[w]);
    fastest = std::max(fastest, clocks_[w]);
  }
  if (slowest != UINT64_MAX) stats.max_clock_spread = std::max(stats.max_clock_spread, fastest - slowest);
}

void Server::release_allowed(ServerStats& stats) {
  const std::uint64_t slowest = min_clock();
  for (std::size_t w = 0; w < held_.size(); ++w) {
    if (held_[w] == 0) continue;
    if (!stopping_ && clocks_[w] > slowest + static_cast<std::uint64_t>(bound_)) continue;
    if (!stopping_) stats.max_lead = std::max(stats.max_lead, clocks_[w] - std::min(slowest, clocks_[w]));
    release(w, stats);  // stopping: at any lead, with kAbortedVersion
  }
}

void Server::release(std::size_t worker, ServerStats& stats) {
  const Arrival& arrival = held_arrival_[worker];
  held_[worker] = 0;
  if (compensate_) std::ranges::copy(weights_, sent_copy(worker).begin());  // what the worker gets now
  if (arrival.local == kRemote) {
    const MPI_Comm comm = comm_.native();
    const PullHeader reply{stopping_ ? kAbortedVersion : version_};
    PSBENCH_MPI_CALL(MPI_Send(&reply, sizeof reply, MPI_BYTE, arrival.source, kTagPullHeader, comm));
    for (int c = 0; c < chunk_count(weights_.size()); ++c) {
      const auto [offset, count] = chunk_span(weights_.size(), c);
      PSBENCH_MPI_CALL(MPI_Isend(weights_.data() + offset, static_cast<int>(count), MPI_FLOAT, arrival.source,
                                 kTagPullData, comm, chunk_sends_.at(static_cast<std::size_t>(c))));
    }
    mpi::wait_all(chunk_sends_.all());  // the next update may modify any chunk
  } else {
    const LocalWorker& local = local_[arrival.local];
    Mailbox& mailbox = *local.mailbox;
    mailbox.version = stopping_ ? kAbortedVersion : version_;
    const std::uint64_t published = mailbox.chunks_ready.value.load(std::memory_order_relaxed);
    const int chunks = chunk_count(weights_.size());
    for (int c = 0; c < chunks; ++c) {
      const auto [offset, count] = chunk_span(weights_.size(), c);
      std::copy_n(weights_.begin() + static_cast<std::ptrdiff_t>(offset), count,
                  local.parameters + shard_begin_ + offset);
      const std::uint64_t ready = published + static_cast<std::uint64_t>(c) + 1;
      if (c + 1 < chunks) {
        mailbox.chunks_ready.value.store(ready, std::memory_order_release);
      } else {
        mpi::publish(mailbox.chunks_ready, ready);  // wakes a sleeping worker
      }
    }
  }
  const double held = monotonic_seconds() - held_since_[worker];
  stats.held_seconds += held;
  stats.held_seconds_by_worker[worker] += held;
}

void Server::reply(const Arrival& arrival, ServerStats& stats, bool answer) {
  if (arrival.local == kRemote) {
    serve_by_messages(arrival.source, stats, answer);
  } else {
    serve_in_shared_memory(arrival.local, stats, answer);
  }
}

PushHeader Server::receive_header(const Arrival& arrival) {
  PushHeader header;
  if (arrival.local == kRemote) {
    int bytes = 0;
    PSBENCH_MPI_CALL(MPI_Get_count(&arrival.status, MPI_BYTE, &bytes));
    if (bytes != static_cast<int>(sizeof header)) {
      // Received before it is refused, so that it cannot match a later probe of this communicator.
      std::vector<std::byte> bad(static_cast<std::size_t>(std::max(bytes, 0)));
      PSBENCH_MPI_CALL(
          MPI_Recv(bad.data(), bytes, MPI_BYTE, arrival.source, kTagPushHeader, comm_.native(), MPI_STATUS_IGNORE));
      validator_.check_envelope(arrival.source, static_cast<std::size_t>(bytes));
    }
    PSBENCH_MPI_CALL(
        MPI_Recv(&header, sizeof header, MPI_BYTE, arrival.source, kTagPushHeader, comm_.native(), MPI_STATUS_IGNORE));
  } else {
    header = local_[arrival.local].mailbox->header;
    served_[arrival.local] = arrival.sequence;
  }
  validator_.accept(arrival.source, header, stopping_ ? kAbortedVersion : version_);  // stopping: any version
  return header;
}

void Server::send_final_shard(int worker_rank) {
  MPI_Request request = MPI_REQUEST_NULL;
  PSBENCH_MPI_CALL(MPI_Isend(weights_.data(), static_cast<int>(weights_.size()), MPI_FLOAT, worker_rank, kTagFinalShard,
                             comm_.native(), &request));
  mpi::wait_all(std::span<MPI_Request>(&request, 1));
}

Server::Arrival Server::wait_for_push(const SilenceWatch& watch) {
  Arrival arrival;
  const auto local_push = [&] {
    for (std::size_t i = 0; i < local_.size(); ++i) {
      const std::size_t w = (next_local_ + i) % local_.size();
      const std::uint64_t sequence = local_[w].mailbox->pushed.load(std::memory_order_acquire);
      if (sequence != served_[w]) {
        next_local_ = w + 1;
        arrival = {local_[w].world_rank, w, sequence, {}};
        return true;
      }
    }
    return false;
  };
  const auto remote_push = [&] {
    int found = 0;
    MPI_Status status{};
    PSBENCH_MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, kTagPushHeader, comm_.native(), &found, &status));
    if (found != 0) arrival = {status.MPI_SOURCE, kRemote, 0, status};
    return found != 0;
  };
  if (doorbell_ != nullptr && local_.size() == static_cast<std::size_t>(topology_.workers())) {
    // Every worker is local: nothing arrives by message, so an idle server may sleep on its doorbell.
    mpi::wait_on_counter(doorbell_->pushes, local_push, [&] { watch.check(monotonic_seconds()); });
    return arrival;
  }
  int polls = 0;
  const auto watched = [&] {
    if (++polls % kPollsPerStallCheck == 0) watch.check(monotonic_seconds());
    return false;
  };
  // After serving a local worker, look at remote workers first (and the other way round), so that
  // neither kind can starve the other.
  mpi::wait_with_backoff(
      [&] { return (remote_first_ ? remote_push() || local_push() : local_push() || remote_push()) || watched(); });
  remote_first_ = arrival.local != kRemote;
  return arrival;
}

void Server::serve_by_messages(int source, ServerStats& stats, bool answer) {
  const MPI_Comm comm = comm_.native();
  const auto worker = static_cast<std::size_t>(source - topology_.servers);
  const int chunks = chunk_count(weights_.size());
  const int slots = static_cast<int>(chunk_receives_.size());
  const bool compressed = columns_.has_value();  // the whole gradient in one message, dequantized before the update
  if (compressed) {
    receive_compressed(source, stats);
  } else {
    for (int c = 0; c < std::min(chunks, slots); ++c) receive_chunk(source, c);
  }
  const PullHeader reply{stopping_ ? kAbortedVersion : version_};
  if (answer) PSBENCH_MPI_CALL(MPI_Send(&reply, sizeof reply, MPI_BYTE, source, kTagPullHeader, comm));
  // The worker's copy of the last reply took the shard's lines to its core: claiming the first ones back
  // while chunk 0 arrives keeps a small shard's update from waiting on them.
  prefetch_for_write(weights_.first(std::min(weights_.size(), kPrefetchValues)));
  for (int c = 0; c < chunks; ++c) {
    const auto slot = static_cast<std::size_t>(c % slots);
    const auto [offset, count] = chunk_span(weights_.size(), c);
    if (!compressed) wait_for_chunk(source, c, slot, count);
    const std::span<float> gradient = compressed
                                          ? dequantized_.span().subspan(offset, count)
                                          : std::span<float>(gradient_.span().data() + slot * kChunkValues, count);
    const double apply_start = monotonic_seconds();
    if (!stopping_) apply_chunk(worker, offset, gradient, answer);
    stats.apply_seconds += monotonic_seconds() - apply_start;
    if (!compressed && c + slots < chunks) receive_chunk(source, c + slots);
    if (!answer) continue;  // a held reply: release() sends the shard as it is then
    PSBENCH_MPI_CALL(MPI_Isend(weights_.data() + offset, static_cast<int>(count), MPI_FLOAT, source, kTagPullData, comm,
                               chunk_sends_.at(static_cast<std::size_t>(c))));
  }
  // The next update may modify any chunk: every send from the weights completes first.
  if (answer) mpi::wait_all(chunk_sends_.all());
}

void Server::receive_chunk(int source, int chunk) {
  const std::size_t slot = static_cast<std::size_t>(chunk) % chunk_receives_.size();
  const std::size_t count = chunk_span(weights_.size(), chunk).count;
  PSBENCH_MPI_CALL(MPI_Irecv(gradient_.span().data() + slot * kChunkValues, static_cast<int>(count), MPI_FLOAT, source,
                             kTagPushData, comm_.native(), chunk_receives_.at(slot)));
}

void Server::wait_for_chunk(int source, int chunk, std::size_t slot, std::size_t count) {
  MPI_Status status{};
  int bytes = 0;
  try {
    mpi::wait_with_backoff([&] {
      int done = 0;
      PSBENCH_MPI_CALL(MPI_Test(chunk_receives_.at(slot), &done, &status));
      return done != 0;
    });
    PSBENCH_MPI_CALL(MPI_Get_count(&status, MPI_BYTE, &bytes));
  } catch (const SystemError& error) {  // a longer message than the chunk fails the receive (truncation)
    throw ProtocolError("parameter server " + std::to_string(topology_.rank) + ": gradient chunk " +
                        std::to_string(chunk) + " from " + validator_.describe(source) + " failed: " + error.what());
  }
  if (static_cast<std::size_t>(bytes) != count * sizeof(float)) {
    throw ProtocolError("parameter server " + std::to_string(topology_.rank) + " received a malformed push from " +
                        validator_.describe(source) + ": gradient chunk " + std::to_string(chunk) + " of " +
                        std::to_string(bytes) + " bytes, expected " + std::to_string(count * sizeof(float)));
  }
}

void Server::serve_in_shared_memory(std::size_t local, ServerStats& stats, bool answer) {
  const LocalWorker& worker = local_[local];
  const auto index = static_cast<std::size_t>(worker.world_rank - topology_.servers);
  Mailbox& mailbox = *worker.mailbox;
  const std::span<const float> gradients(worker.gradients + shard_begin_, weights_.size());
  const std::span<float> copy(worker.parameters + shard_begin_, weights_.size());
  const int chunks = chunk_count(weights_.size());
  const double apply_start = monotonic_seconds();
  if (!answer) {  // a held reply: only the update now; release() writes the shard as it is then
    for (int c = 0; c < chunks; ++c) {
      const auto [offset, count] = chunk_span(weights_.size(), c);
      apply_chunk(index, offset, gradients.subspan(offset, count), false);
    }
    stats.apply_seconds += monotonic_seconds() - apply_start;
    return;
  }
  mailbox.version = stopping_ ? kAbortedVersion : version_;
  const std::uint64_t published = mailbox.chunks_ready.value.load(std::memory_order_relaxed);  // written only here
  for (int c = 0; c < chunks; ++c) {
    const auto [offset, count] = chunk_span(weights_.size(), c);
    const std::span<float> fresh = copy.subspan(offset, count);
    if (stopping_) {
      std::copy_n(weights_.begin() + static_cast<std::ptrdiff_t>(offset), count, fresh.begin());
    } else {
      apply_chunk(index, offset, gradients.subspan(offset, count), true, fresh);
    }
    const std::uint64_t ready = published + static_cast<std::uint64_t>(c) + 1;
    if (c + 1 < chunks) {
      mailbox.chunks_ready.value.store(ready, std::memory_order_release);  // a spinning worker takes it now
    } else {
      mpi::publish(mailbox.chunks_ready, ready);  // the whole reply: wakes a sleeping worker
    }
  }
  stats.apply_seconds += monotonic_seconds() - apply_start;
}

}  // namespace psbench::ps
