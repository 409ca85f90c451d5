#include <algorithm>

#include "ps/worker_client.hpp"
#include "train/gradient_exchange.hpp"

namespace psbench::train {
namespace {

class AsyncExchange final : public GradientExchange {
 public:
  AsyncExchange(const mpi::Communicator& world, const ps::Topology& topology, const ps::ShardLayout& layout,
                const ps::NodeLink* link)
      : client_(world, topology, layout, link) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    ps::PushHeader header;
    header.loss = step.loss;
    header.epoch = step.epoch;
    header.samples = step.samples;
    header.last_of_epoch = step.last_of_epoch ? 1U : 0U;
    client_.push_pull(gradients, parameters, header, timer);
  }

  void finish() override { client_.finish(); }

  void abort() override { client_.finish(ps::PushKind::kAbort); }

  [[nodiscard]] bool stopped() const override {
    return std::ranges::find(client_.versions(), ps::kAbortedVersion) != client_.versions().end();
  }

 private:
  ps::WorkerClient client_;
};

}  // namespace

std::unique_ptr<GradientExchange> make_async_exchange(const mpi::Communicator& world, const ps::Topology& topology,
                                                      const ps::ShardLayout& layout, const ps::NodeLink* link) {
  return std::make_unique<AsyncExchange>(world, topology, layout, link);
}

}  // namespace psbench::train
