#include "ps/worker_client.hpp"

#include <algorithm>

#include "common/check.hpp"
#include "compress/onebit.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "ps/protocol_error.hpp"
#include "ps/stall_watch.hpp"

namespace psbench::ps {

namespace {

// Where each server's requests start: per server, one header and one per chunk of its shard.
std::vector<std::size_t> first_requests(const Topology& topology, const ShardLayout& layout) {
  std::vector<std::size_t> first(static_cast<std::size_t>(topology.servers) + 1, 0);
  for (int k = 0; k < topology.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    first[slot + 1] = first[slot] + 1 + static_cast<std::size_t>(chunk_count(layout.size(k)));
  }
  return first;
}

std::string server_name(const Topology& topology, int shard) {
  return "parameter server " + std::to_string(shard) + " (rank " + std::to_string(topology.server_rank(shard)) + ")";
}

}  // namespace

WorkerClient::WorkerClient(const mpi::Communicator& world, const Topology& topology, const ShardLayout& layout,
                           const NodeLink* link, bool pipeline)
    : comm_(world.duplicate()),
      topology_(topology),
      layout_(layout),
      versions_(static_cast<std::size_t>(topology.servers), 0),
      push_headers_(static_cast<std::size_t>(topology.servers)),
      pull_headers_(static_cast<std::size_t>(topology.servers)),
      sends_(first_requests(topology, layout).back(), "a worker's push sends"),
      receives_(first_requests(topology, layout).back(), "a worker's pull receives"),
      receive_statuses_(first_requests(topology, layout).back()),
      first_request_(first_requests(topology, layout)),
      mailboxes_(static_cast<std::size_t>(topology.servers), nullptr),
      doorbells_(static_cast<std::size_t>(topology.servers), nullptr),
      chunks_copied_(static_cast<std::size_t>(topology.servers), 0),
      pipeline_(pipeline),
      send_buffer_(0),
      reply_buffer_(0),
      computed_versions_(static_cast<std::size_t>(topology.servers), 0) {
  PSBENCH_CHECK(!topology.is_server()) << "rank " << topology.rank << " is a server, not a worker";
  PSBENCH_CHECK(layout.shards() == topology.servers)
      << layout.shards() << " shards for " << topology.servers << " servers";
  if (link != nullptr) {
    for (int k = 0; k < topology.servers; ++k) {
      mailboxes_[static_cast<std::size_t>(k)] = link->mailbox(k);
      doorbells_[static_cast<std::size_t>(k)] = link->doorbell(k);
    }
    shared_gradients_ = link->gradients();
    shared_parameters_ = link->parameters();
    all_local_ = std::ranges::none_of(mailboxes_, [](const Mailbox* mailbox) { return mailbox == nullptr; });
  }
  if (pipeline && !all_local_) {  // indexed like the parameters; only the remote shards' ranges are used
    send_buffer_ = AlignedBuffer(layout.parameters());
    reply_buffer_ = AlignedBuffer(layout.parameters());
  }
}

void WorkerClient::compress_pushes(compress::ColumnLayout columns, bool error_feedback) {
  PSBENCH_CHECK(columns.values() == layout_.parameters())
      << "columns over " << columns.values() << " values for " << layout_.parameters() << " parameters";
  PSBENCH_CHECK(!pipeline_ && std::ranges::none_of(mailboxes_, [](const Mailbox* m) { return m != nullptr; }))
      << "compressed pushes travel by messages, without the pipeline";
  shard_words_.clear();
  for (int k = 0; k <= topology_.servers; ++k) {
    const std::size_t begin = k < topology_.servers ? layout_.begin(k) : layout_.parameters();
    shard_words_.push_back(columns.words_before(begin));  // checks that no column straddles the shard's start
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
  if (columns_) {
    const ScopedPhase compress(timer, Phase::kCompress);
    compress::quantize_onebit(*columns_, gradients, residual_.span(), packed_);
  }
  const double start_time = monotonic_seconds();
  // Receives are posted straight into the parameters and sends read the gradients in place: no copy.
  start(gradients, gradients, parameters, versions_, step);
  const double pushed = wait_for_replies(parameters, start_time);
  take_replies();
  const double end = monotonic_seconds();
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
  const double start_time = monotonic_seconds();
  for (int k = 0; k < topology_.servers && !in_place; ++k) {  // the remote shards go out from the send buffer
    if (mailboxes_[static_cast<std::size_t>(k)] != nullptr) continue;
    const auto begin = static_cast<std::ptrdiff_t>(layout_.begin(k));
    std::copy_n(gradients.begin() + begin, layout_.size(k), send_buffer_.span().begin() + begin);
  }
  start(gradients, in_place ? gradients : send_buffer_.span(), reply_buffer_.span(), computed_versions_, step);
  // Where the model computes its gradients in the window itself, its next backward pass would overwrite the
  // gradient a local server is still reading: unless the caller releases the gradients before that pass
  // (in place), the local servers' replies are awaited here. Either way they stay in the reply area until the
  // next step takes them, so that every push still carries the versions one step older.
  const bool window = !shared_gradients_.empty() && gradients.data() == shared_gradients_.data();
  gradients_held_ = in_place;
  window_held_ = in_place && window;
  const bool local_in_place = window && !in_place;
  const double posted = monotonic_seconds();
  if (local_in_place) wait_for_local_writes(start_time);
  const double end = monotonic_seconds();
  timer.add(Phase::kPush, posted - start_time);
  if (local_in_place) timer.add(Phase::kPull, end - posted);
  timing_.wait_s += end - start_time;
  started_at_ = start_time;
  in_flight_ = true;
}

void WorkerClient::release_gradients(PhaseTimer& timer) {
  if (!in_flight_ || !gradients_held_) return;
  const double start = monotonic_seconds();
  if (window_held_) wait_for_local_writes(start);
  const double timeout = reply_timeout();
  int polls = 0;
  mpi::wait_with_backoff([&] {
    (void)test_messages();
    if (!sent_ && timeout > 0.0 && ++polls % kPollsPerStallCheck == 0) {
      const double waited = monotonic_seconds() - start;
      if (waited >= timeout) report_silent_server(waited);
    }
    return sent_;
  });
  const double end = monotonic_seconds();
  timer.add(Phase::kPush, end - start);
  timing_.wait_s += end - start;
  gradients_held_ = false;
  window_held_ = false;
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
  (void)wait_for_replies(parameters, wait_start);  // local chunks are copied into parameters as they are found
  take_replies();
  for (int k = 0; k < topology_.servers; ++k) {
    if (mailboxes_[static_cast<std::size_t>(k)] != nullptr) continue;
    const auto begin = static_cast<std::ptrdiff_t>(layout_.begin(k));
    std::copy_n(reply_buffer_.span().begin() + begin, layout_.size(k), parameters.begin() + begin);
  }
  const double end = monotonic_seconds();
  timer.add(Phase::kPull, end - wait_start);
  timing_.wall_s += end - started_at_;
  timing_.wait_s += end - wait_start;
  in_flight_ = false;
  gradients_held_ = false;  // every send completed and every local reply was written
  window_held_ = false;
}

void WorkerClient::start(std::span<const float> gradients, std::span<const float> sources, std::span<float> replies,
                         std::span<const std::uint64_t> versions, const PushHeader& step) {
  const MPI_Comm comm = comm_.native();
  ++sequence_;
  sent_ = all_local_;
  received_ = all_local_;
  pushed_at_ = 0.0;
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    const int server = topology_.server_rank(k);
    const std::size_t begin = layout_.begin(k);
    const std::size_t size = layout_.size(k);
    push_headers_[slot] = step;
    push_headers_[slot].kind = PushKind::kGradient;
    push_headers_[slot].version = versions[slot];
    const std::size_t words = columns_ ? shard_words_[slot + 1] - shard_words_[slot] : 0;
    traffic_.sent += sizeof(PushHeader) + (columns_ ? words * sizeof(std::uint32_t) : size * sizeof(float));
    traffic_.received += sizeof(PullHeader) + size * sizeof(float);
    if (Mailbox* mailbox = mailboxes_[slot]; mailbox != nullptr) {
      if (gradients.data() != shared_gradients_.data()) {
        std::copy_n(gradients.begin() + static_cast<std::ptrdiff_t>(begin), size,
                    shared_gradients_.begin() + static_cast<std::ptrdiff_t>(begin));
      }
      mailbox->header = push_headers_[slot];
      mailbox->pushed.store(sequence_, std::memory_order_release);
      mpi::publish_increment(doorbells_[slot]->pushes);
      continue;  // this server's requests stay null
    }
    // Receives are posted first, so the reply lands without a copy (in the parameters, or the reply buffer).
    std::size_t request = first_request_[slot];
    PSBENCH_MPI_CALL(MPI_Irecv(&pull_headers_[slot], sizeof(PullHeader), MPI_BYTE, server, kTagPullHeader, comm,
                               receives_.at(request)));
    PSBENCH_MPI_CALL(MPI_Isend(&push_headers_[slot], sizeof(PushHeader), MPI_BYTE, server, kTagPushHeader, comm,
                               sends_.at(request)));
    ++request;
    if (columns_) {  // the shard's packed form in one message, in the request of chunk 0's send
      PSBENCH_MPI_CALL(MPI_Isend(packed_.data() + shard_words_[slot], static_cast<int>(words), MPI_UINT32_T, server,
                                 kTagPushData, comm, sends_.at(request)));
    }
    for (int c = 0; c < chunk_count(size); ++c, ++request) {
      const auto [offset, count] = chunk_span(size, c);
      PSBENCH_MPI_CALL(MPI_Irecv(replies.data() + begin + offset, static_cast<int>(count), MPI_FLOAT, server,
                                 kTagPullData, comm, receives_.at(request)));
      if (columns_) continue;
      PSBENCH_MPI_CALL(MPI_Isend(sources.data() + begin + offset, static_cast<int>(count), MPI_FLOAT, server,
                                 kTagPushData, comm, sends_.at(request)));
    }
  }
}

void WorkerClient::take_replies() {
  check_replies();
  for (std::size_t slot = 0; slot < versions_.size(); ++slot) {
    versions_[slot] = mailboxes_[slot] != nullptr ? mailboxes_[slot]->version : pull_headers_[slot].version;
  }
}

bool WorkerClient::test_messages() {
  if (!sent_) {
    int done = 0;
    PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(sends_.size()), sends_.all().data(), &done, MPI_STATUSES_IGNORE));
    if (done != 0) {
      sent_ = true;
      pushed_at_ = monotonic_seconds();
    }
  }
  if (!received_) {
    int done = 0;
    PSBENCH_MPI_CALL(
        MPI_Testall(static_cast<int>(receives_.size()), receives_.all().data(), &done, receive_statuses_.data()));
    received_ = done != 0;
  }
  return sent_ && received_;
}

void WorkerClient::progress() {
  if (in_flight_) (void)test_messages();
}

void WorkerClient::wait_for_local_writes(double start) {
  const double timeout = reply_timeout();
  const auto watch = [&] {
    const double waited = monotonic_seconds() - start;
    if (timeout > 0.0 && waited >= timeout) report_silent_server(waited);
  };
  if (all_local_) {
    for (int k = 0; k < topology_.servers; ++k) {
      mpi::wait_on_counter(
          mailboxes_[static_cast<std::size_t>(k)]->chunks_ready, [&] { return reply_written(k); }, watch);
    }
    return;
  }
  int polls = 0;
  mpi::wait_with_backoff([&] {
    (void)test_messages();  // the remote servers' messages move meanwhile; they are not awaited here
    bool done = true;
    for (int k = 0; k < topology_.servers; ++k) done = reply_written(k) && done;
    if (!done && ++polls % kPollsPerStallCheck == 0) watch();
    return done;
  });
}

double WorkerClient::wait_for_replies(std::span<float> parameters, double start) {
  if (all_local_) return wait_for_local_replies(parameters, start);
  // One loop for everything: local replies are copied out as they are published while the messages of
  // remote servers are in flight.
  const double timeout = reply_timeout();
  int polls = 0;
  mpi::wait_with_backoff([&] {
    bool copied = true;
    for (int k = 0; k < topology_.servers; ++k) copied = copy_published_chunks(k, parameters) && copied;
    const bool done = test_messages() && copied;
    if (!done && timeout > 0.0 && ++polls % kPollsPerStallCheck == 0) {
      const double waited = monotonic_seconds() - start;
      if (waited >= timeout) report_silent_server(waited);
    }
    return done;
  });
  return std::max(pushed_at_, start);  // sends completed before this wait began (pipelined) count from its start
}

void WorkerClient::check_replies() const {
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    if (mailboxes_[slot] != nullptr) continue;
    const std::size_t first = first_request_[slot];
    for (std::size_t r = first; r < first_request_[slot + 1]; ++r) {
      const std::size_t expected =
          r == first ? sizeof(PullHeader)
                     : chunk_span(layout_.size(k), static_cast<int>(r - first - 1)).count * sizeof(float);
      int bytes = 0;
      PSBENCH_MPI_CALL(MPI_Get_count(&receive_statuses_[r], MPI_BYTE, &bytes));
      if (static_cast<std::size_t>(bytes) != expected) {
        throw ProtocolError("worker rank " + std::to_string(topology_.rank) + " received a malformed reply from " +
                            server_name(topology_, k) + ": message " + std::to_string(r - first) + " of " +
                            std::to_string(bytes) + " bytes, expected " + std::to_string(expected));
      }
    }
    if (pull_headers_[slot].version <= push_headers_[slot].version) {
      throw ProtocolError("worker rank " + std::to_string(topology_.rank) + " received a malformed reply from " +
                          server_name(topology_, k) + ": shard version " + std::to_string(pull_headers_[slot].version) +
                          " after pushing from version " + std::to_string(push_headers_[slot].version) +
                          " (a reply must be newer than the push)");
    }
  }
}

void WorkerClient::report_silent_server(double seconds) {
  for (int k = 0; k < topology_.servers; ++k) {
    const auto slot = static_cast<std::size_t>(k);
    bool complete = reply_written(k);
    if (mailboxes_[slot] == nullptr && !received_) {
      int done = 0;
      const std::span<MPI_Request> requests =
          receives_.slice(first_request_[slot], first_request_[slot + 1] - first_request_[slot]);
      PSBENCH_MPI_CALL(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE));
      complete = done != 0;
    }
    if (!complete) throw PeerStalled(silent_server_message(topology_.rank, k, topology_.server_rank(k), seconds));
  }
  throw PeerStalled(silent_server_message(topology_.rank, 0, topology_.server_rank(0), seconds));
}

bool WorkerClient::reply_written(int shard) const {
  const Mailbox* const mailbox = mailboxes_[static_cast<std::size_t>(shard)];
  if (mailbox == nullptr) return true;
  const auto chunks = static_cast<std::uint64_t>(chunk_count(layout_.size(shard)));
  return mailbox->chunks_ready.value.load(std::memory_order_acquire) >= sequence_ * chunks;
}

double WorkerClient::wait_for_local_replies(std::span<float> parameters, double start) {
  // No message is in flight: each server's reply is awaited in turn (sleeping in the kernel where the
  // ranks outnumber the cores), and the watch still ends a wait on a silent server.
  const double pushed = monotonic_seconds();
  const double timeout = reply_timeout();
  const auto watch = [&] {
    const double waited = monotonic_seconds() - start;
    if (timeout > 0.0 && waited >= timeout) report_silent_server(waited);
  };
  for (int k = 0; k < topology_.servers; ++k) {
    mpi::wait_on_counter(
        mailboxes_[static_cast<std::size_t>(k)]->chunks_ready, [&] { return copy_published_chunks(k, parameters); },
        watch);
  }
  return pushed;
}

bool WorkerClient::copy_published_chunks(int shard, std::span<float> parameters) {
  const auto slot = static_cast<std::size_t>(shard);
  Mailbox* const mailbox = mailboxes_[slot];
  if (mailbox == nullptr) return true;
  const auto chunks = static_cast<std::uint64_t>(chunk_count(layout_.size(shard)));
  const std::uint64_t wanted = sequence_ * chunks;  // push_pull is never called after finish()
  if (chunks_copied_[slot] == wanted) return true;
  const std::uint64_t ready = std::min(mailbox->chunks_ready.value.load(std::memory_order_acquire), wanted);
  if (parameters.data() == shared_parameters_.data()) {  // the caller's parameters are the area: nothing to copy
    chunks_copied_[slot] = ready;
    return ready == wanted;
  }
  const std::size_t begin = layout_.begin(shard);
  for (; chunks_copied_[slot] < ready; ++chunks_copied_[slot]) {
    const auto [offset, count] = chunk_span(layout_.size(shard), static_cast<int>(chunks_copied_[slot] % chunks));
    std::copy_n(shared_parameters_.begin() + static_cast<std::ptrdiff_t>(begin + offset), count,
                parameters.begin() + static_cast<std::ptrdiff_t>(begin + offset));
  }
  return chunks_copied_[slot] == wanted;
}

void WorkerClient::finish(PushKind kind) {
  PSBENCH_CHECK(!in_flight_) << "finish with a pipelined exchange in flight: complete it first";
  PushHeader done;
  done.kind = kind;
  ++sequence_;
  traffic_.sent += static_cast<std::uint64_t>(topology_.servers) * sizeof(PushHeader);
  for (int k = 0; k < topology_.servers; ++k) {
    if (Mailbox* mailbox = mailboxes_[static_cast<std::size_t>(k)]; mailbox != nullptr) {
      mailbox->header = done;
      mailbox->pushed.store(sequence_, std::memory_order_release);
      mpi::publish_increment(doorbells_[static_cast<std::size_t>(k)]->pushes);
      continue;
    }
    PSBENCH_MPI_CALL(MPI_Send(&done, sizeof done, MPI_BYTE, topology_.server_rank(k), kTagPushHeader, comm_.native()));
  }
}

void WorkerClient::receive_final_shards(std::span<float> parameters) {
  PSBENCH_CHECK(parameters.size() == layout_.parameters()) << parameters.size() << " values for the final shards";
  for (int k = 0; k < topology_.servers; ++k) {
    MPI_Request* request = receives_.at(first_request_[static_cast<std::size_t>(k)]);
    PSBENCH_MPI_CALL(MPI_Irecv(parameters.data() + layout_.begin(k), static_cast<int>(layout_.size(k)), MPI_FLOAT,
                               topology_.server_rank(k), kTagFinalShard, comm_.native(), request));
  }
  mpi::wait_all(receives_.all());
  traffic_.received += parameters.size() * sizeof(float);
}

}  // namespace psbench::ps
