#include <algorithm>

#include "ps/shard_columns.hpp"
#include "ps/worker_client.hpp"
#include "train/exchange/gradient_exchange.hpp"

namespace psbench::train {
namespace {

// Staleness with --pipeline (CNTK's UsePipeline). A server records, for each push, its shard's version when
// it applies the push minus the version in the push's header: the version of the weights the gradient was
// computed from. Without the pipeline, worker i's push t carries the version of its pull after push t-1 (the
// version just after push t-1 was applied); with it, the weights of step t are those taken in after push t-2,
// because step t is computed while push t-1 travels, and push t carries that version.
//
// Nothing in the protocol bounds staleness by itself: a worker that is descheduled for a while lets the
// others push any number of times (2-worker runs on 2 oversubscribed cores measured maxima of 6 without the
// pipeline and 30 with it). The bound the study quotes assumes that between two consecutive pushes of one worker
// reaching a server, each of the other W-1 workers reaches it at most once (all workers equally fast, served in turn),
// from each worker's second push on:
//   - without the pipeline, between push t-1 and push t of worker i the server applies only the others'
//     pushes: staleness <= W - 1;
//   - with it, between push t-2 and push t it applies worker i's own push t-1 and at most W-1 pushes of the
//     others in each of the two intervals (t-2, t-1) and (t-1, t): staleness <= 2(W - 1) + 1 = 2W - 1.
// Strict round robin reaches both bounds exactly from the third round on (tests/mpi/ps/pipeline_test.cpp), and
// with one worker the pipeline's staleness is exactly 1 from its second push on. Whatever the timing, with the
// pipeline every push but each server's very first is at least 1 stale (the pusher's own previous push always
// lies between), so a run's server histogram holds exactly one 0 (tests/mpi/train/pipeline_test.cpp).
//
// The push reads the model's gradients in place (the remote shards by MPI, the local ones in the shared window,
// where the model computes them: run_setup.cpp); the next step's backward pass, which overwrites them, first
// waits until the push has left them (ps::WorkerClient::release_gradients, from overlap()'s listener), by which
// time the servers have usually long read them: the whole exchange overlaps the next step's forward pass.
class AsyncExchange final : public GradientExchange {
 public:
  AsyncExchange(const mpi::Communicator& world, const ps::Topology& topology, const ps::ShardLayout& layout,
                ps::Links links, std::span<float> parameters, bool pipeline, const AsyncCompression& compression,
                const ps::ProtocolSettings& settings)
      : client_(world, topology, layout, links, pipeline, settings),
        evaluates_(topology.worker_index() == 0),
        pipeline_(pipeline),
        parameters_(parameters),
        progress_(client_) {
    if (compression.columns != nullptr) {
      client_.compress_pushes(ps::cut_at_shards(*compression.columns, layout), compression.error_feedback);
    }
  }

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    ps::PushHeader header;
    header.loss = step.loss;
    header.epoch = step.epoch;
    header.samples = step.samples;
    header.last_of_epoch = step.last_of_epoch ? 1U : 0U;
    if (!pipeline_) {
      client_.push_pull(gradients, parameters, header, timer);
      return;
    }
    // 1. takes the previous step's replies into parameters (the wait is the un-hidden part); 2. starts this
    // step's push and pull, whose replies land in the client's buffers. The push reads gradients in place:
    // the next step's backward pass releases them first (overlap(), asked before every step), so nothing is
    // copied and the local servers' work overlaps the next step too.
    client_.push_pull_pipelined(gradients, parameters, header, timer, /*in_place=*/true);
    timer_ = &timer;
  }

  // While a step's exchange travels, the next step's backward pass lets MPI move its messages after each
  // layer (a few microseconds each): a remote server's reply is taken meanwhile, and the server, which waits
  // until its reply is sent before it takes the next push, goes on to serve the other workers instead of
  // waiting for this worker's next exchange() (an MPI library moves a large message only inside its calls).
  [[nodiscard]] nn::GradientListener* overlap(std::span<const float> /*gradients*/, bool /*unscaled*/,
                                              PhaseTimer& timer) override {
    if (!pipeline_) return nullptr;
    progress_.time_into(timer);
    return &progress_;
  }

  // The first worker evaluates: the servers' final shards arrive in its model's parameters (the servers
  // send them after done or abort alike, also to a worker that took no step).
  void finish() override {
    complete_in_flight();
    client_.finish();
    receive_final_shards();
  }

  void abort() override {
    complete_in_flight();
    client_.finish(ps::PushKind::kAbort);
    receive_final_shards();
  }

  [[nodiscard]] bool stopped() const override {
    return std::ranges::find(client_.versions(), ps::kAbortedVersion) != client_.versions().end();
  }

  [[nodiscard]] ExchangeTotals totals() const override {
    const ps::WorkerClient::Timing timing = client_.timing();
    const ps::WorkerClient::Traffic traffic = client_.traffic();
    return {timing.wall_s, timing.wait_s, traffic.sent, traffic.received};
  }

 private:
  // Before the backward pass overwrites the gradients, waits until the push in flight no longer reads them;
  // after each layer, lets MPI move the exchange in flight without waiting.
  class Progress final : public nn::GradientListener {
   public:
    explicit Progress(ps::WorkerClient& client) : client_(client) {}
    void time_into(PhaseTimer& timer) { timer_ = &timer; }
    void backward_started(float /*loss*/) override { client_.release_gradients(*timer_); }
    void gradients_ready(std::size_t /*first*/) override { client_.progress(); }

   private:
    ps::WorkerClient& client_;
    PhaseTimer* timer_ = nullptr;  // the step's timer
  };

  // The last step's replies, before the servers hear done or abort: its wait is timed as the steps' were.
  void complete_in_flight() {
    if (!client_.in_flight()) return;
    PhaseTimer unused;
    client_.complete(parameters_, timer_ != nullptr ? *timer_ : unused);
  }

  void receive_final_shards() {
    if (evaluates_) client_.receive_final_shards(parameters_);
  }

  ps::WorkerClient client_;
  bool evaluates_;
  bool pipeline_;
  std::span<float> parameters_;  // the model's parameters, which every exchange updates
  PhaseTimer* timer_ = nullptr;  // the steps' timer, for the last completion (finish and abort take none)
  Progress progress_;
};

}  // namespace

std::unique_ptr<GradientExchange> make_async_exchange(const mpi::Communicator& world, const ps::Topology& topology,
                                                      const ps::ShardLayout& layout, ps::Links links,
                                                      std::span<float> parameters, bool pipeline,
                                                      const AsyncCompression& compression,
                                                      const ps::ProtocolSettings& settings) {
  return std::make_unique<AsyncExchange>(world, topology, layout, links, parameters, pipeline, compression, settings);
}

}  // namespace psbench::train
