#include "ps/worker_client.hpp"
#include "train/gradient_exchange.hpp"

namespace psbench::train {
namespace {

class AsyncExchange final : public GradientExchange {
 public:
  AsyncExchange(const mpi::Communicator& world, const ps::Topology& topology, const ps::ShardLayout& layout,
                const ps::NodeLink* link)
      : client_(world, topology, layout, link), evaluates_(topology.worker_index() == 0) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    ps::PushHeader header;
    header.loss = step.loss;
    header.epoch = step.epoch;
    header.samples = step.samples;
    header.last_of_epoch = step.last_of_epoch ? 1U : 0U;
    client_.push_pull(gradients, parameters, header, timer);
    parameters_ = parameters;
  }

  // The first worker evaluates: the servers' final shards arrive in its parameters.
  void finish() override {
    client_.finish();
    if (evaluates_) client_.receive_final_shards(parameters_);
  }

 private:
  ps::WorkerClient client_;
  bool evaluates_;
  std::span<float> parameters_;  // the model's parameters, as every exchange passes them
};

}  // namespace

std::unique_ptr<GradientExchange> make_async_exchange(const mpi::Communicator& world, const ps::Topology& topology,
                                                      const ps::ShardLayout& layout, const ps::NodeLink* link) {
  return std::make_unique<AsyncExchange>(world, topology, layout, link);
}

}  // namespace psbench::train
