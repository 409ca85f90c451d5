#include "common/check.hpp"
#include "train/exchange/gradient_exchange.hpp"

namespace psbench::train {
namespace {

class LocalExchange final : public GradientExchange {
 public:
  LocalExchange(std::size_t parameters, ps::SgdConfig config) : optimizer_(parameters, config) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& /*step*/,
                PhaseTimer& timer) override {
    const ScopedPhase update(timer, Phase::kServerUpdate);
    optimizer_.apply(parameters, gradients);
  }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return optimizer_.velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override { optimizer_.restore_velocity(velocity); }

 private:
  ps::SgdOptimizer optimizer_;
};

}  // namespace

void GradientExchange::exchange_without_batch(std::span<float> /*parameters*/, const StepInfo& step,
                                              PhaseTimer& /*timer*/) {
  PSBENCH_CHECK(false) << "step " << step.step << " without a batch is only defined in sync mode";
}

std::unique_ptr<GradientExchange> make_local_exchange(std::size_t parameters, ps::SgdConfig config) {
  return std::make_unique<LocalExchange>(parameters, config);
}

}  // namespace psbench::train
