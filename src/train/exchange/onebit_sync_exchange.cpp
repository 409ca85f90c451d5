#include <cmath>
#include <limits>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "common/check.hpp"
#include "compress/onebit.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "train/exchange/gradient_exchange.hpp"

namespace psbench::train {
namespace {

// Counts and displacements (in words) of the W stripes of a packed gradient, as MPI's v-collectives take them.
struct StripeWords {
  std::vector<int> counts;
  std::vector<int> displacements;
};

StripeWords stripe_words(const compress::ColumnLayout& layout, const std::vector<std::size_t>& bounds) {
  StripeWords words;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    words.displacements.push_back(static_cast<int>(layout.word_begin(bounds[j])));
    words.counts.push_back(static_cast<int>(layout.word_begin(bounds[j + 1]) - layout.word_begin(bounds[j])));
  }
  return words;
}

// CNTK's 1-bit aggregation (AllReduceDistGradAggregator), after the backward pass: every worker quantizes its whole
// gradient with its residual; the columns are split into W stripes; worker j receives stripe j of every worker's
// packed gradient (its own too, MPI_Ialltoallv), dequantizes and sums them, quantizes the sum with a second residual,
// and every worker gathers the W packed sums (MPI_Iallgatherv) and dequantizes the whole. Then SGD with the sum scaled
// by 1/W, as in plain sync mode. Every buffer is sized here; a step allocates nothing. Both collectives are
// non-blocking and awaited with backoff: in a blocking one Open MPI spins, and where ranks share cores (the virtual
// rack's nodes, an oversubscribed node) each of its rounds then waits for the scheduler to run the peer.
class OneBitSyncExchange final : public GradientExchange {
 public:
  OneBitSyncExchange(const mpi::Communicator& workers, std::span<float> gradients,
                     const compress::ColumnLayout& columns, ps::SgdConfig config, std::size_t own_steps,
                     bool error_feedback)
      : workers_(workers),
        gradients_(gradients),
        layout_(columns),
        bounds_(compress::stripe_bounds(columns, workers.size())),
        stripes_(stripe_words(columns, bounds_)),
        stripe_(layout_.slice(bounds_[own()], bounds_[own() + 1])),
        residual_(error_feedback ? gradients.size() : 0),
        sum_residual_(error_feedback ? stripe_.values() : 0),
        packed_(layout_.words()),
        received_(static_cast<std::size_t>(workers.size()) * stripe_.words()),
        gathered_(layout_.words()),
        stripe_sum_(stripe_.values()),
        reduced_(gradients.size()),
        optimizer_(gradients.size(), config),
        scale_(1.0F / static_cast<float>(workers.size())),
        padded_steps_(
            static_cast<std::size_t>(workers.allreduce(static_cast<std::uint64_t>(own_steps), mpi::ReduceOp::kMax))) {
    PSBENCH_CHECK(columns.values() == gradients.size())
        << "columns over " << columns.values() << " values for a gradient of " << gradients.size();
    const int own_words = stripes_.counts[own()];
    for (int i = 0; i < workers.size(); ++i) {
      from_each_.counts.push_back(own_words);
      from_each_.displacements.push_back(i * own_words);
    }
    const std::uint64_t others = layout_.words() - static_cast<std::uint64_t>(own_words);
    const auto peers = static_cast<std::uint64_t>(workers.size() - 1);
    bytes_per_step_ = (others + peers * static_cast<std::uint64_t>(own_words)) * sizeof(std::uint32_t);
  }

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& /*step*/,
                PhaseTimer& timer) override {
    aggregate(gradients, timer);
    apply(parameters, timer);
  }

  [[nodiscard]] std::size_t steps_per_epoch(std::size_t /*own_steps*/) const override { return padded_steps_; }

  void exchange_without_batch(std::span<float> parameters, const StepInfo& /*step*/, PhaseTimer& timer) override {
    std::fill(gradients_.begin(), gradients_.end(), 0.0F);
    aggregate(gradients_, timer);
    apply(parameters, timer);
  }

  // The others are in this step's exchange: join it with a NaN in value 0, which every worker's sum shows (a NaN
  // quantizes to the upper side of its column, whose mean it makes NaN).
  void abort() override {
    gradients_[0] = std::numeric_limits<float>::quiet_NaN();
    PhaseTimer unused;
    aggregate(gradients_, unused);
  }

  [[nodiscard]] bool stopped() const override { return stopped_; }
  [[nodiscard]] ExchangeTotals totals() const override { return totals_; }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return optimizer_.velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override { optimizer_.restore_velocity(velocity); }

 private:
  [[nodiscard]] std::size_t own() const { return static_cast<std::size_t>(workers_.rank()); }

  // Leaves the dequantized sum of every worker's gradient in reduced_.
  void aggregate(std::span<const float> gradients, PhaseTimer& timer) {
    const MPI_Comm comm = workers_.native();
    const double start = monotonic_seconds();
    {
      const ScopedPhase compress(timer, Phase::kCompress);
      compress::quantize_onebit(layout_, gradients, residual_.span(), packed_);
    }
    const double scattered_at = monotonic_seconds();
    PSBENCH_MPI_CALL(MPI_Ialltoallv(packed_.data(), stripes_.counts.data(), stripes_.displacements.data(), MPI_UINT32_T,
                                    received_.data(), from_each_.counts.data(), from_each_.displacements.data(),
                                    MPI_UINT32_T, comm, &request_));
    mpi::wait_all(std::span(&request_, 1));
    const double summed_at = monotonic_seconds();
    timer.add(Phase::kPush, summed_at - scattered_at);
    {
      const ScopedPhase compress(timer, Phase::kCompress);
      std::fill(stripe_sum_.span().begin(), stripe_sum_.span().end(), 0.0F);
      const std::span<const std::uint32_t> received(received_);
      for (std::size_t i = 0; i < static_cast<std::size_t>(workers_.size()); ++i) {
        compress::dequantize_add_onebit(stripe_, received.subspan(i * stripe_.words(), stripe_.words()),
                                        stripe_sum_.span());
      }
      const auto own_words = static_cast<std::size_t>(stripes_.counts[own()]);
      compress::quantize_onebit(
          stripe_, stripe_sum_.span(), sum_residual_.span(),
          std::span(gathered_).subspan(static_cast<std::size_t>(stripes_.displacements[own()]), own_words));
    }
    const double gathered_at = monotonic_seconds();
    PSBENCH_MPI_CALL(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered_.data(), stripes_.counts.data(),
                                     stripes_.displacements.data(), MPI_UINT32_T, comm, &request_));
    mpi::wait_all(std::span(&request_, 1));
    const double end = monotonic_seconds();
    timer.add(Phase::kPull, end - gathered_at);
    {
      const ScopedPhase compress(timer, Phase::kCompress);
      compress::dequantize_onebit(layout_, gathered_, reduced_.span());
    }
    totals_.wall_s += monotonic_seconds() - start;
    totals_.wait_s += (summed_at - scattered_at) + (end - gathered_at);
    totals_.bytes_sent += bytes_per_step_;
    totals_.bytes_received += bytes_per_step_;
  }

  void apply(std::span<float> parameters, PhaseTimer& timer) {
    if (!std::isfinite(reduced_.span()[0])) {  // a worker whose loss was not finite poisoned the sum (abort())
      stopped_ = true;
      return;
    }
    const ScopedPhase update(timer, Phase::kServerUpdate);
    optimizer_.apply_scaled(parameters, reduced_.span(), scale_);
  }

  const mpi::Communicator& workers_;
  std::span<float> gradients_;  // the model's gradient vector (zeroed for a step without a batch)
  compress::ColumnLayout layout_;
  std::vector<std::size_t> bounds_;  // stripe j is columns [bounds_[j], bounds_[j + 1])
  StripeWords stripes_;              // stripe j's words in a packed gradient
  StripeWords from_each_;            // this worker's stripe from each worker, one after another in received_
  compress::ColumnLayout stripe_;    // this worker's stripe, rebased
  AlignedBuffer residual_;           // error feedback of this worker's gradient (empty without it)
  AlignedBuffer sum_residual_;       // error feedback of this worker's stripe of the sum (empty without it)
  std::vector<std::uint32_t> packed_;
  std::vector<std::uint32_t> received_;
  std::vector<std::uint32_t> gathered_;  // every stripe of the packed sum
  AlignedBuffer stripe_sum_;
  AlignedBuffer reduced_;  // the dequantized sum
  ps::SgdOptimizer optimizer_;
  float scale_;
  std::size_t padded_steps_;
  std::uint64_t bytes_per_step_ = 0;        // handed to MPI each step, either way: W-1 stripes out and in
  MPI_Request request_ = MPI_REQUEST_NULL;  // the collective in flight
  ExchangeTotals totals_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<GradientExchange> make_onebit_sync_exchange(const mpi::Communicator& workers,
                                                            std::span<float> gradients,
                                                            const compress::ColumnLayout& columns, ps::SgdConfig config,
                                                            std::size_t own_steps, bool error_feedback) {
  return std::make_unique<OneBitSyncExchange>(workers, gradients, columns, config, own_steps, error_feedback);
}

}  // namespace psbench::train
