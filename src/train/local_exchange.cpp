#include "common/check.hpp"
#include "train/gradient_exchange.hpp"

namespace psbench::train {
namespace {

// The update of each layer runs as soon as its backward pass has written its gradients (nothing later in
// the step reads that layer's weights), while they are still in the caches; a gradient that was scaled (the
// remainder batch, warm-up) is applied whole in exchange(). Each value gets the same arithmetic either way.
class LocalExchange final : public GradientExchange, private nn::GradientListener {
 public:
  LocalExchange(std::span<float> parameters, ps::SgdConfig config)
      : optimizer_(parameters.size(), config), parameters_(parameters) {}

  [[nodiscard]] nn::GradientListener* overlap(std::span<const float> gradients, PhaseTimer& timer) override {
    timer_ = &timer;
    PSBENCH_CHECK(gradients.size() == parameters_.size())
        << "gradient of " << gradients.size() << " values, expected " << parameters_.size();
    gradients_ = gradients;
    applied_from_ = gradients.size();
    return this;
  }

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& /*step*/,
                PhaseTimer& timer) override {
    const ScopedPhase update(timer, Phase::kServerUpdate);
    if (gradients_.empty()) {
      optimizer_.apply(parameters, gradients);
      return;
    }
    PSBENCH_CHECK(gradients.data() == gradients_.data() && parameters.data() == parameters_.data())
        << "the step's gradients were applied layer by layer to other vectors";
    apply_down_to(0);
    gradients_ = {};
  }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return optimizer_.velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override { optimizer_.restore_velocity(velocity); }

 private:
  void backward_started(float /*loss*/) override {}
  void gradients_ready(std::size_t first) override {
    const ScopedPhase update(*timer_, Phase::kServerUpdate);
    apply_down_to(first);
  }

  void apply_down_to(std::size_t first) {
    if (first >= applied_from_) return;
    const std::size_t count = applied_from_ - first;
    optimizer_.apply_slice(parameters_.subspan(first, count), gradients_.subspan(first, count), first);
    applied_from_ = first;
  }

  ps::SgdOptimizer optimizer_;
  std::span<float> parameters_;       // the model's weights
  std::span<const float> gradients_;  // this step's gradients while they are applied layer by layer
  std::size_t applied_from_ = 0;      // gradients from here to the end are applied
  PhaseTimer* timer_ = nullptr;       // the step's timer, which the per-layer updates add to
};

}  // namespace

void GradientExchange::exchange_without_batch(std::span<float> /*parameters*/, const StepInfo& step,
                                              PhaseTimer& /*timer*/) {
  PSBENCH_CHECK(false) << "step " << step.step << " without a batch is only defined in sync mode";
}

std::unique_ptr<GradientExchange> make_local_exchange(std::span<float> parameters, ps::SgdConfig config) {
  return std::make_unique<LocalExchange>(parameters, config);
}

}  // namespace psbench::train
