#include "train/fault_injection.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

#include "common/phase_timer.hpp"

namespace psbench::train {
namespace {

void sleep_seconds(double seconds) {
  if (seconds > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

class FaultyExchange final : public GradientExchange {
 public:
  FaultyExchange(std::unique_ptr<GradientExchange> inner, const FaultPlan& fault, const StragglerPlan& straggler,
                 int rank)
      : inner_(std::move(inner)),
        fault_(fault),
        rank_(rank),
        factor_(straggler.rank == rank ? straggler.factor : 1.0),
        computed_since_(monotonic_seconds()) {}

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    before_step();
    if (diverges_now()) {
      nan_gradients_.assign(gradients.size(), std::numeric_limits<float>::quiet_NaN());
      gradients = nan_gradients_;
    }
    inner_->exchange(gradients, parameters, step, timer);
    computed_since_ = monotonic_seconds();
  }
  [[nodiscard]] std::size_t steps_per_epoch(std::size_t own_steps) const override {
    return inner_->steps_per_epoch(own_steps);
  }
  void exchange_without_batch(std::span<float> parameters, const StepInfo& step, PhaseTimer& timer) override {
    before_step();
    inner_->exchange_without_batch(parameters, step, timer);
    computed_since_ = monotonic_seconds();
  }
  [[nodiscard]] nn::GradientListener* overlap(std::span<const float> gradients, bool unscaled,
                                              PhaseTimer& timer) override {
    return inner_->overlap(gradients, unscaled, timer);
  }
  [[nodiscard]] ExchangeTotals totals() const override { return inner_->totals(); }
  void finish() override { inner_->finish(); }
  void abort() override { inner_->abort(); }
  bool combined_model(std::span<const float> parameters, std::span<float> out) override {
    return inner_->combined_model(parameters, out);
  }
  [[nodiscard]] bool stopped() const override { return inner_->stopped(); }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return inner_->optimizer_velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override {
    inner_->restore_optimizer_velocity(velocity);
  }

 private:
  void before_step() {
    sleep_seconds((factor_ - 1.0) * (monotonic_seconds() - computed_since_));
    inject_fault_at(fault_, rank_, ++steps_);
  }

  // --inject-fault diverge at this worker's step: its gradient becomes NaN, as a blown-up loss's would.
  [[nodiscard]] bool diverges_now() const {
    return fault_.kind == FaultPlan::Kind::kDiverge && fault_.rank == rank_ && fault_.step == steps_;
  }

  std::unique_ptr<GradientExchange> inner_;
  FaultPlan fault_;
  int rank_;
  double factor_;
  double computed_since_;
  std::uint64_t steps_ = 0;
  std::vector<float> nan_gradients_;  // the diverging step's gradient (--inject-fault diverge)
};

}  // namespace

void inject_fault_at(const FaultPlan& fault, int rank, std::uint64_t step) {
  if (fault.kind == FaultPlan::Kind::kNone || fault.rank != rank || fault.step != step) return;
  if (fault.kind == FaultPlan::Kind::kDiverge) {
    std::fprintf(stderr, "psbench: injected fault: rank %d diverges at step %llu (its gradient becomes NaN)\n", rank,
                 static_cast<unsigned long long>(step));
    std::fflush(stderr);
    return;
  }
  if (fault.kind == FaultPlan::Kind::kCrash) {
    std::fprintf(stderr, "psbench: injected fault: rank %d crashes at step %llu (exit %d, no clean-up)\n", rank,
                 static_cast<unsigned long long>(step), kInjectedCrashExitCode);
    std::fflush(stderr);
    _exit(kInjectedCrashExitCode);
  }
  std::fprintf(stderr, "psbench: injected fault: rank %d stalls for %g s at step %llu\n", rank, fault.seconds,
               static_cast<unsigned long long>(step));
  std::fflush(stderr);
  sleep_seconds(fault.seconds);
}

std::function<void(std::uint64_t)> server_fault_hook(const FaultPlan& fault, int rank) {
  if (fault.kind == FaultPlan::Kind::kNone || fault.rank != rank) return {};
  return [fault, rank](std::uint64_t updates) { inject_fault_at(fault, rank, updates); };
}

std::unique_ptr<GradientExchange> with_faults(std::unique_ptr<GradientExchange> exchange, const FaultPlan& fault,
                                              const StragglerPlan& straggler, int rank) {
  if (fault.rank != rank && straggler.rank != rank) return exchange;
  return std::make_unique<FaultyExchange>(std::move(exchange), fault, straggler, rank);
}

}  // namespace psbench::train
