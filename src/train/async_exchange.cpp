#include <algorithm>
#include <vector>

#include "common/check.hpp"
#include "ps/worker_client.hpp"
#include "train/gradient_exchange.hpp"

namespace psbench::train {
namespace {

class AsyncExchange final : public GradientExchange {
 public:
  AsyncExchange(const mpi::Communicator& world, const ps::Topology& topology, const ps::ShardLayout& layout,
                const ps::NodeLink* link, std::span<float> parameters)
      : client_(world, topology, layout, link), evaluates_(topology.worker_index() == 0), parameters_(parameters) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    ps::PushHeader header;
    header.loss = step.loss;
    header.epoch = step.epoch;
    header.samples = step.samples;
    header.last_of_epoch = step.last_of_epoch ? 1U : 0U;
    client_.push_pull(gradients, parameters, header, timer);
  }

  // The first worker evaluates: the servers' final shards arrive in its model's parameters (the servers
  // send them after done or abort alike, also to a worker that took no step).
  void finish() override {
    client_.finish();
    receive_final_shards();
  }

  void abort() override {
    client_.finish(ps::PushKind::kAbort);
    receive_final_shards();
  }

  [[nodiscard]] bool stopped() const override {
    return std::ranges::find(client_.versions(), ps::kAbortedVersion) != client_.versions().end();
  }

 private:
  void receive_final_shards() {
    if (evaluates_) client_.receive_final_shards(parameters_);
  }

  ps::WorkerClient client_;
  bool evaluates_;
  std::span<float> parameters_;  // the model's parameters, which every exchange updates
};

}  // namespace

std::unique_ptr<GradientExchange> make_async_exchange(const mpi::Communicator& world, const ps::Topology& topology,
                                                      const ps::ShardLayout& layout, const ps::NodeLink* link,
                                                      std::span<float> parameters, bool pipeline) {
  PSBENCH_CHECK(!pipeline) << "--pipeline is not built yet";
  return std::make_unique<AsyncExchange>(world, topology, layout, link, parameters);
}

}  // namespace psbench::train
