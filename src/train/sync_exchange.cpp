#include <cmath>
#include <limits>
#include <span>

#include "common/aligned_buffer.hpp"
#include "common/check.hpp"
#include "mpi/call.hpp"
#include "train/gradient_exchange.hpp"

namespace psbench::train {
namespace {

class SyncExchange final : public GradientExchange {
 public:
  SyncExchange(const mpi::Communicator& workers, std::size_t parameters, ps::SgdConfig config, std::size_t own_steps)
      : workers_(workers),
        optimizer_(parameters, config),
        reduced_(parameters),
        zeros_(parameters),
        scale_(1.0F / static_cast<float>(workers.size())),
        padded_steps_(
            static_cast<std::size_t>(workers.allreduce(static_cast<std::uint64_t>(own_steps), mpi::ReduceOp::kMax))) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& /*step*/,
                PhaseTimer& timer) override {
    reduce_and_apply(gradients, parameters, timer);
  }

  [[nodiscard]] std::size_t steps_per_epoch(std::size_t /*own_steps*/) const override { return padded_steps_; }

  void exchange_without_batch(std::span<float> parameters, const StepInfo& /*step*/, PhaseTimer& timer) override {
    reduce_and_apply(zeros_.span(), parameters, timer);
  }

  // The others are in this step's allreduce: join it with a NaN, which makes every worker's sum NaN.
  void abort() override {
    zeros_.span()[0] = std::numeric_limits<float>::quiet_NaN();
    PhaseTimer unused;
    reduce_and_apply(zeros_.span(), {}, unused);
  }

  [[nodiscard]] bool stopped() const override { return stopped_; }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return optimizer_.velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override { optimizer_.restore_velocity(velocity); }

 private:
  // MPI reads the model's gradient buffer and writes the sum straight into reduced_: no copy of its own.
  void reduce_and_apply(std::span<const float> gradients, std::span<float> parameters, PhaseTimer& timer) {
    const std::span<float> reduced = reduced_.span();
    PSBENCH_CHECK(gradients.size() == reduced.size())
        << "gradient of " << gradients.size() << " values, expected " << reduced.size();
    {
      const ScopedPhase push(timer, Phase::kPush);
      PSBENCH_MPI_CALL(MPI_Allreduce(gradients.data(), reduced.data(), static_cast<int>(reduced.size()), MPI_FLOAT,
                                     MPI_SUM, workers_.native()));
    }
    // A worker whose loss was not finite poisons the sum (abort()); one look costs nothing per step.
    if (!std::isfinite(reduced[0])) {
      stopped_ = true;
      return;
    }
    const ScopedPhase update(timer, Phase::kServerUpdate);
    for (float& value : reduced) value *= scale_;
    optimizer_.apply(parameters, reduced);
  }

  const mpi::Communicator& workers_;
  ps::SgdOptimizer optimizer_;
  AlignedBuffer reduced_;  // aligned, as every buffer MPI copies in bulk (common/aligned_buffer.hpp)
  AlignedBuffer zeros_;
  float scale_;
  std::size_t padded_steps_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<GradientExchange> make_sync_exchange(const mpi::Communicator& workers, std::size_t parameters,
                                                     ps::SgdConfig config, std::size_t own_steps) {
  return std::make_unique<SyncExchange>(workers, parameters, config, own_steps);
}

}  // namespace psbench::train
