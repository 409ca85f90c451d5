#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/aligned_buffer.hpp"
#include "common/check.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "mpi/request_set.hpp"
#include "train/exchange/block_update.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/exchange/persistent_allreduce.hpp"

namespace psbench::train {
namespace {

// Every worker trains alone with local SGD (its own momentum) and, when a block ends (BlockClock), the workers
// synchronise by one allreduce of P floats over their own duplicate of the workers' communicator (so the
// evaluations' collectives can never match a block's): BMUF sums the block deltas and applies BlockMomentum,
// then resets the local momentum (CNTK's resetSGDMomentum default); averaging first sums the samples each
// trained on in the block, then sums the models scaled by their share, and keeps the momentum (CNTK's
// BasicModelAveragingSGD). The allreduces are persistent where MPI has them (built once: a synchronisation
// allocates nothing, in psbench or in MPI) and awaited with backoff, because in a blocking allreduce Open MPI
// spins and takes the core of a worker still training.
class BlockExchange final : public GradientExchange {
 public:
  BlockExchange(const mpi::Communicator& workers, std::span<float> parameters, ps::SgdConfig config,
                const BlockSettings& settings, std::uint64_t own_samples, std::uint64_t batch)
      : workers_(workers.duplicate()),
        parameters_(parameters),
        optimizer_(parameters.size(), config),
        send_(parameters.size()),
        block_(parameters.size()),
        largest_partition_(workers_.allreduce(own_samples, mpi::ReduceOp::kMax)),
        clock_(settings.block_samples, largest_partition_, batch),
        requests_(2, "a block's allreduces"),
        block_bytes_(ring_allreduce_bytes(parameters.size() * sizeof(float), workers_.size())) {
    if (settings.learner == BlockLearner::kMomentum) {
      momentum_.emplace(parameters, settings.momentum, settings.learning_rate, settings.nesterov);
    } else {
      block_bytes_ += ring_allreduce_bytes(sizeof(std::uint64_t), workers_.size());
    }
    if (!kPersistentAllreduce) return;
    PSBENCH_MPI_CALL(allreduce_init(&samples_, &total_samples_, 1, MPI_UINT64_T, workers_.native(), requests_.at(0)));
    PSBENCH_MPI_CALL(allreduce_init(send_.span().data(), block_.span().data(), static_cast<int>(block_.span().size()),
                                    MPI_FLOAT, workers_.native(), requests_.at(1)));
  }

  BlockExchange(const BlockExchange&) = delete;
  BlockExchange& operator=(const BlockExchange&) = delete;
  ~BlockExchange() override {
    if (!kPersistentAllreduce) return;
    for (MPI_Request& request : requests_.all()) {
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    }
  }

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                PhaseTimer& timer) override {
    timer_ = &timer;
    {
      const ScopedPhase update(timer, Phase::kServerUpdate);
      optimizer_.apply(parameters, gradients);
    }
    samples_ += step.samples;
    if (clock_.advance(step.step)) synchronise(timer);
  }

  [[nodiscard]] std::size_t steps_per_epoch(std::size_t /*own_steps*/) const override {
    return clock_.steps_per_epoch();
  }

  void exchange_without_batch(std::span<float> /*parameters*/, const StepInfo& step, PhaseTimer& timer) override {
    timer_ = &timer;
    if (clock_.advance(step.step)) synchronise(timer);
  }

  // A run stopped within an epoch (--stop-at-target) synchronises its partial block too (unless a diverged run
  // already stopped every worker); a run that ends with its last epoch has synchronised there.
  void finish() override {
    if (stopped_ || !clock_.pending()) return;
    PhaseTimer unused;
    synchronise(timer_ != nullptr ? *timer_ : unused);
  }

  // Joins the next synchronisation (a block's end, at the latest the epoch's last step, which every other worker
  // still reaches) with NaN, which every worker's sum then shows.
  void abort() override {
    samples_ = 0;
    if (!momentum_) (void)sum_samples();
    std::fill(send_.span().begin(), send_.span().end(), std::numeric_limits<float>::quiet_NaN());
    reduce();
    stopped_ = true;
  }

  // The synchronisation's collectives and its update written into out, not into the model: the parameters, the
  // block and the momenta stay as they are. Its bytes are the evaluation's, not training's: not counted.
  bool combined_model(std::span<const float> parameters, std::span<float> out) override {
    if (stopped_ || !clock_.pending()) return false;
    if (momentum_) {
      momentum_->delta(parameters, send_.span());
    } else {
      average_shares();
    }
    reduce(false);
    if (!std::isfinite(block_.span()[0])) {
      stopped_ = true;
      return false;
    }
    if (momentum_) {
      momentum_->preview(block_.span(), out);
    } else {
      std::copy(block_.span().begin(), block_.span().end(), out.begin());
    }
    return true;
  }

  [[nodiscard]] bool stopped() const override { return stopped_; }
  [[nodiscard]] ExchangeTotals totals() const override { return totals_; }

 private:
  void synchronise(PhaseTimer& timer) {
    const ScopedPhase push(timer, Phase::kPush);
    const double start = monotonic_seconds();
    if (momentum_) {
      momentum_->delta(parameters_, send_.span());
    } else {
      average_shares();
    }
    reduce();
    if (!std::isfinite(block_.span()[0])) {
      stopped_ = true;
    } else if (momentum_) {
      momentum_->apply(block_.span(), parameters_);
      optimizer_.reset_velocity();
    } else {
      std::copy(block_.span().begin(), block_.span().end(), parameters_.begin());
    }
    samples_ = 0;
    const double seconds = monotonic_seconds() - start;
    totals_.wall_s += seconds;
    totals_.wait_s += seconds;
  }

  // Averaging: sums the block's samples, then scales this worker's model by its share (1/W when no worker
  // trained on any, as CNTK does) into the send buffer.
  void average_shares() {
    const std::uint64_t total = sum_samples();
    const float share = total > 0 ? static_cast<float>(static_cast<double>(samples_) / static_cast<double>(total))
                                  : 1.0F / static_cast<float>(workers_.size());
    std::transform(parameters_.begin(), parameters_.end(), send_.span().begin(),
                   [share](float weight) { return share * weight; });
  }

  // The samples every worker trained on since the last synchronisation.
  std::uint64_t sum_samples() {
    PSBENCH_MPI_CALL(start_allreduce(&samples_, &total_samples_, 1, MPI_UINT64_T, workers_.native(), requests_.at(0)));
    mpi::wait_all(requests_.slice(0, 1));
    return total_samples_;
  }

  // Sums the send buffer over the workers into the block buffer; counted: its bytes are training's.
  void reduce(bool counted = true) {
    PSBENCH_MPI_CALL(start_allreduce(send_.span().data(), block_.span().data(), static_cast<int>(block_.span().size()),
                                     MPI_FLOAT, workers_.native(), requests_.at(1)));
    mpi::wait_all(requests_.slice(1, 1));
    if (!counted) return;
    totals_.bytes_sent += block_bytes_;
    totals_.bytes_received += block_bytes_;
  }

  mpi::Communicator workers_;    // this exchange's duplicate of the workers' communicator
  std::span<float> parameters_;  // the model's parameters, which local SGD updates between blocks
  ps::SgdOptimizer optimizer_;
  AlignedBuffer send_;   // this worker's block delta (bmuf) or scaled model (average)
  AlignedBuffer block_;  // their sum over the workers
  std::uint64_t largest_partition_;
  BlockClock clock_;
  std::optional<BlockMomentum> momentum_;  // bmuf; empty when averaging
  mpi::RequestSet requests_;               // averaging's sample count, and the block's sum
  std::uint64_t block_bytes_;              // each way, per synchronisation
  std::uint64_t samples_ = 0;              // samples this worker trained on since the last synchronisation
  std::uint64_t total_samples_ = 0;        // their sum over the workers (averaging)
  PhaseTimer* timer_ = nullptr;            // the steps' timer, for the final synchronisation
  ExchangeTotals totals_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<GradientExchange> make_block_exchange(const mpi::Communicator& workers, std::span<float> parameters,
                                                      ps::SgdConfig config, const BlockSettings& settings,
                                                      std::uint64_t own_samples, std::uint64_t batch) {
  return std::make_unique<BlockExchange>(workers, parameters, config, settings, own_samples, batch);
}

}  // namespace psbench::train
