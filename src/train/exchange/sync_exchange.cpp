#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "common/aligned_buffer.hpp"
#include "common/check.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"
#include "mpi/request_set.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/exchange/persistent_allreduce.hpp"

namespace psbench::train {
namespace {

std::size_t bucket_count(std::size_t parameters, std::size_t bucket_values) {
  return std::max<std::size_t>(1, (parameters + bucket_values - 1) / bucket_values);
}

// Bucket k holds the k-th bucket_values gradients counted from the last parameter down (the backward pass
// finishes the last layer first); the lowest bucket takes what is left. Every bucket's allreduce reads the
// model's gradient vector and writes the sum into reduced_: no copy of the exchange's own. The step's end awaits the
// buckets with backoff: in a blocking wait Open MPI spins, and where ranks share cores each round of the allreduce
// then waits for the scheduler to run the peer.
class SyncExchange final : public GradientExchange, private nn::GradientListener {
 public:
  SyncExchange(const mpi::Communicator& workers, std::span<float> gradients, ps::SgdConfig config,
               std::size_t own_steps, std::size_t bucket_bytes)
      : workers_(workers),
        gradients_(gradients),
        optimizer_(gradients.size(), config),
        reduced_(gradients.size()),
        scale_(1.0F / static_cast<float>(workers.size())),
        bucket_values_(std::max<std::size_t>(1, bucket_bytes / sizeof(float))),
        requests_(bucket_count(gradients.size(), bucket_values_), "the sync allreduce's buckets"),
        padded_steps_(
            static_cast<std::size_t>(workers.allreduce(static_cast<std::uint64_t>(own_steps), mpi::ReduceOp::kMax))) {
    for (std::size_t k = 0; k < requests_.size(); ++k) {
      step_bytes_ += ring_allreduce_bytes((bucket_end(k) - bucket_begin(k)) * sizeof(float), workers.size());
    }
    if (!kPersistentAllreduce) return;
    for (std::size_t k = 0; k < requests_.size(); ++k) {
      const std::size_t begin = bucket_begin(k);
      PSBENCH_MPI_CALL(allreduce_init(gradients_.data() + begin, reduced_.span().data() + begin,
                                      static_cast<int>(bucket_end(k) - begin), MPI_FLOAT, workers_.native(),
                                      requests_.at(k)));
    }
  }

  SyncExchange(const SyncExchange&) = delete;
  SyncExchange& operator=(const SyncExchange&) = delete;
  ~SyncExchange() override {
    if (!kPersistentAllreduce || next_bucket_ != 0)
      return;  // a bucket in flight: the job is ending, the set reports it
    for (MPI_Request& request : requests_.all()) {
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    }
  }

  [[nodiscard]] nn::GradientListener* overlap(std::span<const float> gradients, bool unscaled,
                                              PhaseTimer& /*timer*/) override {
    if (!unscaled) return nullptr;  // scaled after the pass: its buckets start in exchange()
    begin_step(gradients);
    return this;
  }

  void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& /*step*/,
                PhaseTimer& timer) override {
    if (next_bucket_ == 0) begin_step(gradients);
    reduce_and_apply(parameters, timer);
  }

  [[nodiscard]] std::size_t steps_per_epoch(std::size_t /*own_steps*/) const override { return padded_steps_; }

  void exchange_without_batch(std::span<float> parameters, const StepInfo& /*step*/, PhaseTimer& timer) override {
    std::fill(gradients_.begin(), gradients_.end(), 0.0F);
    begin_step(gradients_);
    reduce_and_apply(parameters, timer);
  }

  // The others are in this step's allreduce: join it with a NaN (when the backward pass started the buckets,
  // the bucket of parameter 0 carried it already), which makes every worker's sum NaN.
  void abort() override {
    if (next_bucket_ == 0) begin_step(gradients_);
    poison_ = true;
    start_remaining();
    mpi::wait_all(requests_.all());
    count_step_bytes();
    next_bucket_ = 0;
  }

  [[nodiscard]] bool stopped() const override { return stopped_; }
  [[nodiscard]] ExchangeTotals totals() const override { return totals_; }
  [[nodiscard]] std::span<const float> optimizer_velocity() const override { return optimizer_.velocity(); }
  void restore_optimizer_velocity(std::span<const float> velocity) override { optimizer_.restore_velocity(velocity); }

 private:
  void backward_started(float loss) override { poison_ = !std::isfinite(loss); }

  // Starts every bucket whose gradients are all final, then lets MPI progress the ones in flight (on a core
  // without a spare one, a non-blocking collective moves only inside MPI calls).
  void gradients_ready(std::size_t first) override {
    while (next_bucket_ < requests_.size() && bucket_begin(next_bucket_) >= first) start_next();
    mpi::test_all(requests_.slice(0, next_bucket_));
  }

  [[nodiscard]] std::size_t bucket_begin(std::size_t k) const {
    return k + 1 == requests_.size() ? 0 : gradients_.size() - (k + 1) * bucket_values_;
  }
  [[nodiscard]] std::size_t bucket_end(std::size_t k) const { return gradients_.size() - k * bucket_values_; }

  void begin_step(std::span<const float> gradients) {
    PSBENCH_CHECK(next_bucket_ == 0) << "a step began while " << next_bucket_ << " buckets of the last are in flight";
    PSBENCH_CHECK(gradients.data() == gradients_.data() && gradients.size() == gradients_.size())
        << "the sync exchange reduces the model's gradient vector (" << gradients_.size() << " values), not another "
        << gradients.size() << "-value one";
    poison_ = false;
  }

  // Starts the next bucket. A worker whose loss was not finite writes a NaN into parameter 0's gradient before
  // its bucket (the last) starts, which every worker's sum shows.
  void start_next() {
    const std::size_t k = next_bucket_;
    if (k == 0) started_at_ = monotonic_seconds();
    if (poison_ && k + 1 == requests_.size()) gradients_[0] = std::numeric_limits<float>::quiet_NaN();
    const std::size_t begin = bucket_begin(k);
    PSBENCH_MPI_CALL(start_allreduce(gradients_.data() + begin, reduced_.span().data() + begin,
                                     static_cast<int>(bucket_end(k) - begin), MPI_FLOAT, workers_.native(),
                                     requests_.at(k)));
    next_bucket_ = k + 1;
  }

  void count_step_bytes() {
    totals_.bytes_sent += step_bytes_;
    totals_.bytes_received += step_bytes_;
  }

  void start_remaining() {
    while (next_bucket_ < requests_.size()) start_next();
  }

  // Waits for every bucket (starting those the backward pass did not), then applies the averaged sum.
  void reduce_and_apply(std::span<float> parameters, PhaseTimer& timer) {
    {
      const ScopedPhase push(timer, Phase::kPush);
      const double wait_start = monotonic_seconds();
      start_remaining();
      mpi::wait_all(requests_.all());
      const double taken = monotonic_seconds();
      totals_.wait_s += taken - wait_start;
      totals_.wall_s += taken - started_at_;
    }
    count_step_bytes();
    next_bucket_ = 0;
    // A worker whose loss was not finite poisons the sum (abort()); one look costs nothing per step.
    if (!std::isfinite(reduced_.span()[0])) {
      stopped_ = true;
      return;
    }
    const ScopedPhase update(timer, Phase::kServerUpdate);
    optimizer_.apply_scaled(parameters, reduced_.span(), scale_);
  }

  const mpi::Communicator& workers_;
  std::span<float> gradients_;  // the model's gradient vector, which every bucket's allreduce reads
  ps::SgdOptimizer optimizer_;
  AlignedBuffer reduced_;  // aligned, as every buffer MPI copies in bulk (common/aligned_buffer.hpp)
  float scale_;
  std::size_t bucket_values_;
  mpi::RequestSet requests_;  // bucket k's allreduce
  std::size_t padded_steps_;
  std::uint64_t step_bytes_ = 0;  // each way, per step: every bucket's ring_allreduce_bytes()
  std::size_t next_bucket_ = 0;   // buckets started this step
  bool poison_ = false;           // this step's loss was not finite
  double started_at_ = 0.0;       // when this step's first bucket started
  ExchangeTotals totals_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<GradientExchange> make_sync_exchange(const mpi::Communicator& workers, std::span<float> gradients,
                                                     ps::SgdConfig config, std::size_t own_steps,
                                                     std::size_t bucket_bytes) {
  return std::make_unique<SyncExchange>(workers, gradients, config, own_steps, bucket_bytes);
}

}  // namespace psbench::train
