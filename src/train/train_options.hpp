#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "data/loader.hpp"
#include "ps/stall_watch.hpp"
#include "results/results_file.hpp"
#include "train/checkpoint/checkpoint_schedule.hpp"
#include "train/fault_plan.hpp"

namespace psbench::train {

/// How ranks cooperate: parameter servers (async), allreduce every step (sync), local SGD with a block update by
/// allreduce every block (bmuf: CNTK's block momentum; average: CNTK's model averaging), or one process (local).
enum class Mode { kAsync, kSync, kLocal, kBmuf, kAverage };

/// What an exchange sends of a gradient: every float, or CNTK's 1-bit quantization (--compress).
enum class Compression { kNone, kOneBit };

/// How a worker reaches a server on its own node: through an MPI-3 shared-memory window, by messages, or by MPI
/// one-sided communication (RMA), as it may reach servers on other nodes.
enum class IntraNode { kSharedMemory, kMessages, kRma };

/// How a worker reaches a server on another node: by messages, or by MPI one-sided communication (RMA).
enum class InterNode { kMessages, kRma };

/// Every flag of `psbench train`, with its default.
struct TrainOptions {
  std::string data_path;                            ///< --data: HDF5 file in psbench's layout (docs/data.md)
  std::string model_spec;                           ///< --model: "mlp:512,256" or "cnn"
  int batch = 64;                                   ///< --batch: samples per worker step
  int epochs = 3;                                   ///< --epochs: passes over the training set
  double learning_rate = 0.01;                      ///< --lr: SGD step size (as given; applied in float32)
  double momentum = 0.9;                            ///< --momentum: heavy-ball momentum, 0 for plain SGD
  int warmup_steps = 0;                             ///< --warmup-steps: each worker's first steps ramp the gradient up
  int servers = 1;                                  ///< --servers: S server ranks in async mode
  bool servers_given = false;                       ///< --servers was on the command line
  std::optional<std::uint64_t> bucket_bytes;        ///< --bucket-bytes: sync allreduce bucket (kDefaultBucketBytes)
  bool pipeline = false;                            ///< --pipeline: async push/pull overlaps the next step
  std::optional<int> staleness;                     ///< --staleness s: async bound in clocks (absent: unbounded)
  std::optional<double> delay_compensation;         ///< --delay-compensation: DC-ASGD lambda (absent: off)
  std::optional<std::uint64_t> block_samples;       ///< --block-samples: samples per worker per block (bmuf, average)
  std::optional<double> block_momentum;             ///< --block-momentum: bmuf's block momentum (1 - 1/W)
  std::optional<double> block_lr;                   ///< --block-lr: bmuf's block learning rate (1)
  std::optional<bool> nesterov;                     ///< --nesterov on|off: bmuf's Nesterov step (on)
  Compression compress = Compression::kNone;        ///< --compress: what a worker sends of its gradient
  bool error_feedback = true;                       ///< false with --no-error-feedback
  std::optional<int> eval_every;                    ///< --eval-every N: steps per worker between test evaluations
  std::optional<double> target_accuracy;            ///< --target-accuracy A: the test accuracy to time
  bool stop_at_target = false;                      ///< --stop-at-target: every rank stops once A is reached
  int slow_evaluation = 1;                          ///< --slow-evaluation F: each evaluation runs F times
  IntraNode intra_node = IntraNode::kSharedMemory;  ///< --intra-node: path to servers on the same node
  InterNode inter_node = InterNode::kMessages;      ///< --inter-node: path to servers on other nodes
  Mode mode = Mode::kAsync;                         ///< --mode
  data::IoMode io = data::IoMode::kSequential;      ///< --io
  data::ReadMode read = data::ReadMode::kWhole;     ///< --read
  bool cold_cache = false;                          ///< --cold-cache
  int threads = 1;                                  ///< --threads: oneDNN threads per rank
  std::uint64_t seed = 1;                           ///< --seed: initial weights and shuffling
  std::string out_path;                             ///< --out: results JSON file
  std::string trace_path;                           ///< --trace: Chrome trace JSON file, empty for none
  bool quiet = false;                               ///< --quiet: print only errors
  FaultPlan fault;                                  ///< --inject-fault: a crash or stall on one rank
  StragglerPlan straggler;                          ///< --straggler: one worker's compute slowed
  double stall_timeout = ps::kDefaultStallTimeoutSeconds;  ///< --stall-timeout: seconds of silence; 0 off
  std::string checkpoint_path;                             ///< --checkpoint: HDF5 checkpoint file, empty for none
  std::optional<CheckpointEvery> checkpoint_every;         ///< --checkpoint-every as given (epoch when absent)
  std::string resume_path;                                 ///< --resume: checkpoint to continue from, empty for none
};

/// Sync mode's gradient bucket when --bucket-bytes is not given (docs/running.md, "Overlap").
inline constexpr std::uint64_t kDefaultBucketBytes = 256U << 10U;

/// Block of each worker between two synchronisations when --block-samples is not given: CNTK's
/// blockSizePerWorker defaults (its blockSize is 120,000 x W samples for BlockMomentumSGD, 40,000 x W for
/// ModelAveragingSGD, split evenly among the W workers).
inline constexpr std::uint64_t kDefaultBmufBlockSamples = 120000;
/// --mode average's default block (see kDefaultBmufBlockSamples).
inline constexpr std::uint64_t kDefaultAverageBlockSamples = 40000;

/// True in the modes whose workers take every step together and exchange by allreduce (sync, bmuf, average).
bool workers_in_lockstep(Mode mode);

/// options with the block learners' defaults filled in for workers workers (bmuf: --block-samples 120000,
/// --block-momentum 1 - 1/W, --block-lr 1, --nesterov on; average: --block-samples 40000); other modes unchanged.
TrainOptions with_block_defaults(TrainOptions options, int workers);

/// The flag spelling of a mode ("async", "sync", "local", "bmuf", "average").
std::string_view mode_name(Mode mode);
/// The flag spelling of a compression ("none", "onebit").
std::string_view compression_name(Compression compression);
/// The flag spelling of an intra-node path ("shared-memory", "messages", "rma").
std::string_view intra_node_name(IntraNode path);
/// The flag spelling of an inter-node path ("messages", "rma").
std::string_view inter_node_name(InterNode path);

/// CNTK's warning for bmuf when (1 - bm) x blr x W >= 2 (the block update may overshoot); empty otherwise.
std::optional<std::string> block_overshoot_warning(const TrainOptions& options, int workers);

/// "on" as true, "off" as false; anything else throws UserError naming flag.
bool parse_on_off(const std::string& flag, const std::string& word);

/// Checks the flags that need no data against the job's rank count; throws UserError naming the flag.
void validate_options(const TrainOptions& options, int world_size);

/// Every flag under its flag name: the results file's "config".
results::Config options_config(const TrainOptions& options);

/// options_config() as a JSON object (the trace file's otherData.config).
nlohmann::json options_to_json(const TrainOptions& options);

}  // namespace psbench::train
