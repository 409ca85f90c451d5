#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/phase_timer.hpp"
#include "common/ring_allreduce_bytes.hpp"
#include "compress/column_layout.hpp"
#include "mpi/communicator.hpp"
#include "nn/gradient_listener.hpp"
#include "ps/protocol_settings.hpp"
#include "ps/sgd.hpp"
#include "ps/shard_layout.hpp"
#include "ps/topology.hpp"
#include "ps/transport/links.hpp"

namespace psbench::train {

/// What a worker knows about the step it just computed.
struct StepInfo {
  std::uint32_t epoch = 0;     ///< epoch, from 0
  std::size_t step = 0;        ///< step within the epoch, from 0
  std::uint32_t samples = 0;   ///< samples in this step's batch
  float loss = 0.0F;           ///< mean loss of the batch
  bool last_of_epoch = false;  ///< true on the worker's last step of the epoch
};

/// A worker's exchange, summed over its steps: wall_s from each step's first send (or collective start) to the
/// moment its result was taken, wait_s the part of it the worker was blocked; bytes_sent and bytes_received what
/// it handed to MPI and took back (async: every push, reply, done header and final shard, a 1-bit push as
/// its packed form; a collective: what a ring allreduce of it moves per rank, ring_allreduce_bytes(); 1-bit sync:
/// the stripes it sends to and receives from the other workers in its MPI_Ialltoallv and MPI_Iallgatherv).
struct ExchangeTotals {
  double wall_s = 0.0;               ///< seconds
  double wait_s = 0.0;               ///< seconds
  std::uint64_t bytes_sent = 0;      ///< bytes
  std::uint64_t bytes_received = 0;  ///< bytes
};

/// Turns one step's gradient into the parameters of the next step: by a local SGD update, by a push and
/// pull against the parameter servers, or by an allreduce among workers. Allocates no buffer per step.
class GradientExchange {
 public:
  virtual ~GradientExchange() = default;
  /// Applies gradients (which stay untouched) and leaves the next step's weights in parameters.
  virtual void exchange(std::span<const float> gradients, std::span<float> parameters, const StepInfo& step,
                        PhaseTimer& timer) = 0;
  /// Steps this worker takes per epoch when its own batches need own_steps (more in sync mode, where
  /// every worker joins every allreduce).
  [[nodiscard]] virtual std::size_t steps_per_epoch(std::size_t own_steps) const { return own_steps; }
  /// The listener to give this step's training pass, or nullptr (the default): the model tells it when the
  /// backward pass starts (a pipelined exchange releases the gradients its last push still reads) and as the
  /// gradients in gradients (the model's gradient vector, which exchange() then receives) become final (sync
  /// starts their buckets when unscaled: they go out as the backward pass writes them). Asked before every
  /// step; what the listener does during the step adds its phases to timer, which the step's compute leaves out.
  [[nodiscard]] virtual nn::GradientListener* overlap(std::span<const float> /*gradients*/, bool /*unscaled*/,
                                                      PhaseTimer& /*timer*/) {
    return nullptr;
  }
  /// A step without a batch of its own (sync mode only): joins the allreduce with a zero gradient.
  virtual void exchange_without_batch(std::span<float> parameters, const StepInfo& step, PhaseTimer& timer);
  /// Ends the exchange after the last step (async: tells the servers this worker is done).
  virtual void finish() {}
  /// Ends the exchange at a step whose loss was not finite, so that every rank stops: async tells the
  /// servers (an abort push), sync joins this step's allreduce with a NaN that every worker sees.
  virtual void abort() {}
  /// The model the run would deliver were it to end after this step, written into out (block learners: what the
  /// final synchronisation of the partial block would give, found by the same collectives, so every worker calls
  /// it at the same step; a worker that diverged joins it as it joins a synchronisation, and stopped() then
  /// says so). False, with out untouched, where parameters already are that model.
  virtual bool combined_model(std::span<const float> /*parameters*/, std::span<float> /*out*/) { return false; }
  /// True once another rank's divergence has reached this worker (a server answered
  /// ps::kAbortedVersion, or the summed gradient came back non-finite): it must stop training.
  [[nodiscard]] virtual bool stopped() const { return false; }
  /// The exchange's wall and blocked time so far (zeros where nothing is exchanged: local mode).
  [[nodiscard]] virtual ExchangeTotals totals() const { return {}; }
  /// The optimizer's momentum state where the worker keeps one (sync and local mode; empty otherwise).
  [[nodiscard]] virtual std::span<const float> optimizer_velocity() const { return {}; }
  /// Restores that state from a checkpoint (sync and local mode; the servers keep it in async mode).
  virtual void restore_optimizer_velocity(std::span<const float> /*velocity*/) {}
};

/// Plain local SGD (the reference trainer): the update happens in place, timed as Phase::kServerUpdate.
std::unique_ptr<GradientExchange> make_local_exchange(std::size_t parameters, ps::SgdConfig config);

/// What an async worker's pushes send (--compress): with columns (the model's), each push is quantized per column
/// (ps::WorkerClient::compress_pushes), with a residual when error_feedback; without, every float.
struct AsyncCompression {
  const compress::ColumnLayout* columns = nullptr;  ///< the model's columns, or nullptr: no compression
  bool error_feedback = true;                       ///< keep the quantization error for the next push
};

/// Asynchronous parameter-server exchange: pushes every shard and pulls the fresh shards into parameters, over
/// each server's transport (links: the node's window, RMA; messages for the others). The first worker receives the
/// final shards into parameters (its model's) when it finishes. With pipeline, a step's push and pull stay in
/// flight while the worker computes the next step. settings: the staleness bound, stall timeout and spin budget.
std::unique_ptr<GradientExchange> make_async_exchange(const mpi::Communicator& world, const ps::Topology& topology,
                                                      const ps::ShardLayout& layout, ps::Links links,
                                                      std::span<float> parameters, bool pipeline,
                                                      const AsyncCompression& compression = {},
                                                      const ps::ProtocolSettings& settings = {});

/// Synchronous data-parallel exchange over the workers' communicator: non-blocking (persistent, where MPI has
/// them) allreduces (sum) of the model's gradient vector gradients, which every step must pass, in buckets of
/// bucket_bytes from the last parameter to the first (the order the backward pass finishes them), started as
/// the model reports them final, into a reduced buffer; then SGD with the sum scaled by 1/W on every worker.
/// own_steps is this worker's steps per epoch; workers agree (collectively) on the largest, and a worker out
/// of batches joins with zeros (written into gradients).
std::unique_ptr<GradientExchange> make_sync_exchange(const mpi::Communicator& workers, std::span<float> gradients,
                                                     ps::SgdConfig config, std::size_t own_steps,
                                                     std::size_t bucket_bytes);

/// Which of CNTK's block learners a block exchange runs.
enum class BlockLearner { kMomentum, kAverage };

/// A block exchange's settings (docs/running.md, "Block momentum" and "Model averaging").
struct BlockSettings {
  BlockLearner learner = BlockLearner::kMomentum;  ///< BMUF or model averaging
  std::uint64_t block_samples = 0;                 ///< samples each worker trains on between synchronisations
  float momentum = 0.0F;                           ///< BMUF's block momentum bm, in [0, 1)
  float learning_rate = 1.0F;                      ///< BMUF's block learning rate blr
  bool nesterov = true;                            ///< BMUF's Nesterov step
};

/// CNTK's block learners over the workers' communicator, no server: each worker runs local SGD on parameters
/// (the model's) and, every block of settings.block_samples samples and at each epoch's end
/// (train/exchange/block_update.hpp says how workers agree without a message), the workers synchronise by one allreduce
/// of P floats: BMUF applies the block-momentum update to the summed deltas and resets the local momentum, averaging
/// replaces every model by the mean weighted by the samples each trained on. own_samples is this worker's partition;
/// workers agree (collectively) on the largest, whose steps every worker takes.
std::unique_ptr<GradientExchange> make_block_exchange(const mpi::Communicator& workers, std::span<float> parameters,
                                                      ps::SgdConfig config, const BlockSettings& settings,
                                                      std::uint64_t own_samples, std::uint64_t batch);
/// Synchronous data-parallel exchange with CNTK's 1-bit SGD (--compress onebit), after the backward pass: each worker
/// quantizes gradients (the model's gradient vector, which every step must pass) per column of columns, with its
/// residual when error_feedback; worker j receives stripe j of everyone's (MPI_Ialltoallv), sums it dequantized,
/// quantizes the sum with a second residual, and every worker gathers the packed sums (MPI_Iallgatherv) and applies
/// SGD with their dequantized sum scaled by 1/W. Steps per epoch are agreed as in make_sync_exchange.
std::unique_ptr<GradientExchange> make_onebit_sync_exchange(const mpi::Communicator& workers,
                                                            std::span<float> gradients,
                                                            const compress::ColumnLayout& columns, ps::SgdConfig config,
                                                            std::size_t own_steps, bool error_feedback);

}  // namespace psbench::train
