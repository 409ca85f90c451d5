#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/phase_timer.hpp"
#include "results/json_fields.hpp"

namespace psbench::results {

/// The results file format this psbench writes and reads (docs/results.md).
inline constexpr int kResultsFormat = 2;

/// `config`: every flag of `psbench train`, as given (enumerations by their flag spelling).
struct Config {
  std::string data;         ///< --data
  std::string model;        ///< --model
  int batch = 0;            ///< --batch
  int epochs = 0;           ///< --epochs
  double lr = 0.0;          ///< --lr
  double momentum = 0.0;    ///< --momentum
  int warmup_steps = 0;     ///< --warmup-steps
  int servers = 0;          ///< --servers, as given
  std::string intra_node;   ///< --intra-node: shared-memory | messages | rma
  std::string mode;         ///< --mode: async | sync | local | bmuf | average
  std::string io;           ///< --io: sequential | parallel
  std::string read;         ///< --read: whole | partition
  bool cold_cache = false;  ///< --cold-cache
  int threads = 0;          ///< --threads
  std::uint64_t seed = 0;   ///< --seed
  std::string out;          ///< --out
  std::string trace;        ///< --trace, empty for none
  bool quiet = false;       ///< --quiet
  // The fault and checkpoint flags: always written; optional in format 2, whose older files lack them
  // (docs/formats.md, "Results file").
  std::optional<std::string> inject_fault;      ///< --inject-fault, "" for none
  std::optional<std::string> straggler;         ///< --straggler, "" for none
  std::optional<double> stall_timeout;          ///< --stall-timeout, seconds (0: off)
  std::optional<std::string> checkpoint;        ///< --checkpoint, "" for none
  std::optional<std::string> checkpoint_every;  ///< --checkpoint-every: "epoch" or steps, "" without --checkpoint
  std::optional<std::string> resume;            ///< --resume, "" for none
  // The overlap flags: always written; optional in format 2, whose older files lack them.
  std::optional<std::uint64_t> bucket_bytes;  ///< --bucket-bytes in sync mode (the default when not given), else 0
  std::optional<bool> pipeline;               ///< --pipeline
  // The consistency and time-to-accuracy flags: always written; optional in format 2, whose older files lack them.
  std::optional<std::int64_t> staleness;        ///< --staleness in clocks, -1 for unbounded (the default)
  std::optional<std::int64_t> eval_every;       ///< --eval-every in steps per worker, 0 for none
  std::optional<double> target_accuracy;        ///< --target-accuracy, 0 for none
  std::optional<bool> stop_at_target;           ///< --stop-at-target
  std::optional<std::int64_t> slow_evaluation;  ///< --slow-evaluation factor, 1 for none
  // Delay compensation: always written; optional in format 2, whose older files lack it.
  std::optional<double> delay_compensation;  ///< --delay-compensation lambda (DC-ASGD), 0 for off
  // The block learners' flags: always written; optional in format 2, whose older files lack them.
  std::optional<std::uint64_t> block_samples;  ///< --block-samples in bmuf and average mode (default filled in), else 0
  std::optional<double> block_momentum;        ///< --block-momentum in bmuf mode (default 1 - 1/W filled in), else 0
  std::optional<double> block_lr;              ///< --block-lr in bmuf mode (default 1 filled in), else 0
  std::optional<bool> nesterov;                ///< --nesterov in bmuf mode (default on filled in), else false
  // Gradient compression: always written; optional in format 2, whose older files lack it.
  std::optional<std::string> compress;  ///< --compress: none | onebit
  std::optional<bool> error_feedback;   ///< false with --no-error-feedback
  // The inter-node transport: always written; optional in format 2, whose older files lack it.
  std::optional<std::string> inter_node;  ///< --inter-node: messages | rma
  /// Member-wise equality.
  bool operator==(const Config&) const = default;
};

/// `env`: where the run ran.
struct Environment {
  std::vector<std::string> hosts;                ///< host names in rank order of first appearance
  int ranks = 0;                                 ///< N
  std::map<std::string, int> ranks_per_host;     ///< host -> ranks on it
  int cores = 0;                                 ///< online cores of rank 0's host
  std::map<std::string, int> cores_per_host;     ///< host -> online cores
  int servers = 0;                               ///< S actually used
  int workers = 0;                               ///< W = N - S
  int threads_per_rank = 0;                      ///< oneDNN threads per rank
  std::int64_t wait_spin_us = 0;                 ///< rank 0's poll budget before backing off, µs
  std::map<std::string, std::string> libraries;  ///< psbench, mpi, hdf5, onednn versions
  std::string cpu;                               ///< CPU model name of rank 0's host
  std::string onednn_isa;                        ///< ISA oneDNN dispatched to
  /// Member-wise equality.
  bool operator==(const Environment&) const = default;
};

/// `model`: the trained network.
struct ModelInfo {
  std::string spec;                   ///< the model spec
  std::uint64_t parameters = 0;       ///< P
  std::uint64_t parameter_bytes = 0;  ///< 4 P
  double flops_per_step = 0.0;        ///< forward and backward FLOPs of one full-batch step
  /// Member-wise equality.
  bool operator==(const ModelInfo&) const = default;
};

/// Seconds of each phase, written as an object keyed by phase_name().
struct Phases {
  std::array<double, kPhaseCount> seconds{};  ///< indexed by Phase
  /// The seconds of one phase.
  double& operator[](Phase phase) { return seconds[static_cast<std::size_t>(phase)]; }
  /// The seconds of one phase.
  double operator[](Phase phase) const { return seconds[static_cast<std::size_t>(phase)]; }
  /// Member-wise equality.
  bool operator==(const Phases&) const = default;
};

/// Visit counts' check: fewest and most visits, and epochs after which every sample was visited exactly.
struct Visits {
  std::uint32_t min = 0;           ///< fewest visits of any sample
  std::uint32_t max = 0;           ///< most visits of any sample
  std::uint32_t exact_epochs = 0;  ///< epochs passing the exact check
  /// Member-wise equality.
  bool operator==(const Visits&) const = default;
};

/// What loading a worker's partition cost (`per_rank[].worker.load`).
struct LoadTiming {
  std::uint64_t bytes = 0;  ///< bytes read
  double read_s = 0.0;      ///< open to close
  double wait_s = 0.0;      ///< waiting for the token (sequential I/O)
  double mb_per_s = 0.0;    ///< bytes / read_s / 1e6
  std::string mode;         ///< e.g. sequential+whole
  bool collective = false;  ///< HDF5 reported a collective transfer
  /// Member-wise equality.
  bool operator==(const LoadTiming&) const = default;
};

/// One epoch of one worker (`per_rank[].worker.epochs[]`); times in seconds since the run's start.
struct WorkerEpoch {
  std::uint32_t epoch = 0;              ///< from 0
  std::uint64_t steps = 0;              ///< steps of this worker
  std::uint64_t samples = 0;            ///< samples processed
  double loss_sum = 0.0;                ///< sum of the step mean losses
  double started_at = 0.0;              ///< seconds since the start
  double finished_at = 0.0;             ///< seconds since the start
  std::optional<double> test_accuracy;  ///< local mode only (absent otherwise)
  std::optional<double> evaluation_s;   ///< --eval-every on the evaluating worker: its evaluations in this epoch
  /// Member-wise equality.
  bool operator==(const WorkerEpoch&) const = default;
};

/// How much of a worker's exchange was hidden behind its compute (`per_rank[].worker.exchange`): wall_s runs
/// from each step's first send (or collective start) to the moment its result was taken, wait_s is the part
/// the worker spent blocked on it; hidden_fraction = 1 - wait_s / wall_s (0 without an exchange). bytes_sent and
/// bytes_received count the run's bytes on the wire (docs/results.md says what each mode counts).
struct ExchangeTiming {
  double wall_s = 0.0;                          ///< summed over steps
  double wait_s = 0.0;                          ///< summed over steps: the exchange's un-hidden part
  double hidden_fraction = 0.0;                 ///< 1 - wait_s / wall_s
  std::optional<std::uint64_t> bytes_sent;      ///< over the run (optional in format 2: older files lack it)
  std::optional<std::uint64_t> bytes_received;  ///< over the run (optional in format 2: older files lack it)
  /// Member-wise equality.
  bool operator==(const ExchangeTiming&) const = default;
};

/// `per_rank[].worker`.
struct WorkerEntry {
  int index = 0;                           ///< worker index in [0, W)
  std::uint64_t samples = 0;               ///< samples in its partition
  std::uint64_t first_index = 0;           ///< index in the split of its first sample
  std::uint64_t steps = 0;                 ///< steps over all epochs
  std::uint64_t pushes = 0;                ///< gradient shards pushed
  Visits visits;                           ///< visit counts' check
  std::vector<WorkerEpoch> epochs;         ///< per-epoch tallies
  LoadTiming load;                         ///< loading its partition
  std::optional<ExchangeTiming> exchange;  ///< sync and async workers (optional in format 2: older files lack it)
  /// Member-wise equality.
  bool operator==(const WorkerEntry&) const = default;
};

/// Staleness of the updates: mean, max and the exact histogram (trailing zeros dropped).
struct Staleness {
  double mean = 0.0;                ///< versions
  std::uint64_t max = 0;            ///< versions
  std::vector<std::uint64_t> hist;  ///< hist[k]: updates of staleness k
  /// Member-wise equality.
  bool operator==(const Staleness&) const = default;
};

/// What bounded staleness (--staleness) did on one server (`per_rank[].server.clocks`). A worker's clock is its
/// gradient pushes so far; the reply to a push that brings it more than s clocks ahead of the slowest worker not
/// done is held. Recorded in every async run (nothing is held without --staleness).
struct ClockStats {
  std::uint64_t held_replies = 0;        ///< replies held back by the bound
  double held_s = 0.0;                   ///< seconds, summed over the held replies
  std::vector<double> held_s_by_worker;  ///< held_s per worker index (W entries)
  std::uint64_t max_clock_spread = 0;    ///< largest max - min clock of the workers not done, after a push
  std::uint64_t max_lead = 0;            ///< largest lead over the slowest of a worker whose reply went out
  /// Member-wise equality.
  bool operator==(const ClockStats&) const = default;
};

/// `per_rank[].server`.
struct ServerEntry {
  int shard = 0;                  ///< shard index
  std::uint64_t shard_begin = 0;  ///< first parameter
  std::uint64_t shard_size = 0;   ///< parameters in the shard
  std::uint64_t updates = 0;      ///< pushes applied
  double service_s = 0.0;         ///< busy time
  double apply_s = 0.0;           ///< inside the optimizer
  double idle_s = 0.0;            ///< waiting for messages
  double serve_s = 0.0;           ///< the whole serve() call
  double utilization = 0.0;       ///< service_s / serve_s
  Staleness staleness;            ///< this server's staleness
  std::optional<ClockStats>
      clocks;  ///< the workers' clocks and held replies (optional in format 2: older files lack it)
  /// Bytes of the per-worker shard copies that --delay-compensation keeps (W x shard x 4; 0 without it; optional in
  /// format 2: older files lack it).
  std::optional<std::uint64_t> delay_compensation_bytes;
  /// Member-wise equality.
  bool operator==(const ServerEntry&) const = default;
};

/// One test evaluation during training (--eval-every), by the evaluating worker (`curve[]`).
struct CurvePoint {
  double time_s = 0.0;        ///< training time so far: since the first step, less the evaluations
  std::uint64_t steps = 0;    ///< the evaluating worker's steps so far
  std::uint64_t samples = 0;  ///< its samples so far
  std::uint32_t epoch = 0;    ///< its epoch, from 0
  double loss = 0.0;          ///< mean training loss of its steps since the previous point
  double accuracy = 0.0;      ///< test accuracy of its current parameters
  double test_loss = 0.0;     ///< their mean test cross-entropy
  /// Member-wise equality.
  bool operator==(const CurvePoint&) const = default;
};

/// `per_rank[].evaluation`: the final parameters on the test split (the evaluating worker only).
struct EvaluationEntry {
  double accuracy = 0.0;                         ///< fraction
  double mean_loss = 0.0;                        ///< nats
  std::int64_t samples = 0;                      ///< test samples
  double seconds = 0.0;                          ///< loading the test split and evaluating
  std::string parameter_checksum;                ///< FNV-1a of the final parameters, hex
  std::optional<std::vector<CurvePoint>> curve;  ///< --eval-every: its evaluations during training
  /// Member-wise equality.
  bool operator==(const EvaluationEntry&) const = default;
};

/// One `per_rank[]` entry.
struct RankEntry {
  int rank = 0;                               ///< world rank
  std::string role;                           ///< server | worker
  std::string host;                           ///< host name
  int cores = 0;                              ///< online cores of its host
  std::uint64_t peak_rss_bytes = 0;           ///< peak resident set size
  Phases phases;                              ///< this rank's phases
  std::optional<double> flops_per_step;       ///< workers only
  std::optional<WorkerEntry> worker;          ///< workers only
  std::optional<ServerEntry> server;          ///< servers only
  std::optional<EvaluationEntry> evaluation;  ///< the evaluating worker only
  /// Member-wise equality.
  bool operator==(const RankEntry&) const = default;
};

/// `train`: the run's training totals.
struct TrainSummary {
  int epochs = 0;                          ///< epochs run
  std::uint64_t steps = 0;                 ///< steps summed over workers
  std::uint64_t samples = 0;               ///< samples summed over workers and epochs
  double samples_per_s = 0.0;              ///< samples / training_s
  double training_s = 0.0;                 ///< sum of the epochs' seconds
  double final_loss = 0.0;                 ///< mean training loss of the last epoch
  double test_accuracy = 0.0;              ///< final parameters on the test split
  double test_loss = 0.0;                  ///< mean cross-entropy on the test split
  std::int64_t test_samples = 0;           ///< test samples evaluated
  double evaluation_s = 0.0;               ///< loading the test split and evaluating
  std::uint64_t total_samples = 0;         ///< samples in the training split
  std::uint64_t pushes = 0;                ///< gradient shards pushed, summed over workers
  Visits visits;                           ///< min and max over workers, exact_epochs the minimum
  std::string parameter_checksum;          ///< FNV-1a of the final parameters, hex
  std::optional<double> time_to_target_s;  ///< --target-accuracy: curve time it was first reached; null if not
  /// Member-wise equality.
  bool operator==(const TrainSummary&) const = default;
};

/// `server`: all servers together.
struct ServerSummary {
  std::uint64_t updates = 0;   ///< pushes applied, summed
  double updates_per_s = 0.0;  ///< updates / the longest serve_s
  double utilization = 0.0;    ///< summed service_s / summed serve_s
  Staleness staleness;         ///< over all updates; hist summed over servers
  /// Over all servers (async; optional in format 2: older files lack it): held replies and seconds summed (per
  /// worker too), the largest clock spread and lead.
  std::optional<ClockStats> clocks;
  /// Member-wise equality.
  bool operator==(const ServerSummary&) const = default;
};

/// One `epochs[]` record over all workers; utilization and test_accuracy are written as null when absent.
struct EpochSummary {
  std::uint32_t epoch = 0;              ///< from 0
  std::uint64_t samples = 0;            ///< samples of all workers
  std::uint64_t steps = 0;              ///< steps of all workers
  double seconds = 0.0;                 ///< wall time of the epoch
  double samples_per_s = 0.0;           ///< samples / seconds
  double mean_loss = 0.0;               ///< mean of the workers' step losses
  std::optional<double> utilization;    ///< async only: server 0's busy share in the epoch
  std::optional<double> test_accuracy;  ///< local only: test accuracy after the epoch
  /// Member-wise equality.
  bool operator==(const EpochSummary&) const = default;
};

/// One `load[]` entry: a worker's load timing with its worker index and rank.
struct LoadEntry {
  LoadTiming timing;  ///< as in per_rank[].worker.load
  int worker = 0;     ///< worker index
  int rank = 0;       ///< world rank
  /// Member-wise equality.
  bool operator==(const LoadEntry&) const = default;
};

/// `resumed_from`: the checkpoint a resumed run started from (absent when the run started afresh).
struct ResumedFrom {
  std::string file;                          ///< the --resume file
  std::uint32_t epoch = 0;                   ///< epochs every worker had finished
  std::uint64_t step = 0;                    ///< the checkpoint's step (async: pushes server 0 had received)
  int servers = 0;                           ///< S of the run that wrote it (0 in sync and local mode)
  std::vector<std::uint32_t> worker_epochs;  ///< per worker: the epoch it resumed in
  std::vector<std::uint64_t> worker_steps;   ///< per worker: the step within that epoch it resumed at
  /// Member-wise equality.
  bool operator==(const ResumedFrom&) const = default;
};

/// The whole results file of `psbench train` (docs/results.md).
struct ResultsFile {
  int format = kResultsFormat;                   ///< the file format version
  Config config;                                 ///< every flag
  Environment env;                               ///< where it ran
  ModelInfo model;                               ///< the network
  Phases phases;                                 ///< each phase's maximum over ranks
  std::vector<RankEntry> per_rank;               ///< one entry per rank, in rank order
  TrainSummary train;                            ///< training totals
  ServerSummary server;                          ///< servers together
  std::vector<EpochSummary> epochs;              ///< one record per epoch
  std::vector<LoadEntry> load;                   ///< one entry per worker
  std::optional<ResumedFrom> resumed_from;       ///< the checkpoint this run resumed from, if any
  std::optional<std::vector<CurvePoint>> curve;  ///< --eval-every: test accuracy during training
  /// Member-wise equality.
  bool operator==(const ResultsFile&) const = default;
};

// to_json refuses a non-finite number with SchemaError naming its key; from_json needs every documented key
// (optional ones aside), accepts extra keys, and throws SchemaError naming the first bad key.

/// Writes the `config` object.
void to_json(Json& out, const Config& value);
/// Reads the `config` object.
void from_json(const Json& in, Config& value);
/// Writes the `env` object.
void to_json(Json& out, const Environment& value);
/// Reads the `env` object.
void from_json(const Json& in, Environment& value);
/// Writes the `model` object.
void to_json(Json& out, const ModelInfo& value);
/// Reads the `model` object.
void from_json(const Json& in, ModelInfo& value);
/// Writes a phases object.
void to_json(Json& out, const Phases& value);
/// Reads a phases object (every phase name required).
void from_json(const Json& in, Phases& value);
/// Writes a visits object.
void to_json(Json& out, const Visits& value);
/// Reads a visits object.
void from_json(const Json& in, Visits& value);
/// Writes a load timing object.
void to_json(Json& out, const LoadTiming& value);
/// Reads a load timing object.
void from_json(const Json& in, LoadTiming& value);
/// Writes a worker epoch tally.
void to_json(Json& out, const WorkerEpoch& value);
/// Reads a worker epoch tally.
void from_json(const Json& in, WorkerEpoch& value);
/// Writes an exchange timing object.
void to_json(Json& out, const ExchangeTiming& value);
/// Reads an exchange timing object.
void from_json(const Json& in, ExchangeTiming& value);
/// Writes a worker entry.
void to_json(Json& out, const WorkerEntry& value);
/// Reads a worker entry.
void from_json(const Json& in, WorkerEntry& value);
/// Writes a curve point.
void to_json(Json& out, const CurvePoint& value);
/// Reads a curve point.
void from_json(const Json& in, CurvePoint& value);
/// Writes a staleness object.
void to_json(Json& out, const Staleness& value);
/// Reads a staleness object.
void from_json(const Json& in, Staleness& value);
/// Writes a server's clock statistics.
void to_json(Json& out, const ClockStats& value);
/// Reads a server's clock statistics.
void from_json(const Json& in, ClockStats& value);
/// Writes a server entry.
void to_json(Json& out, const ServerEntry& value);
/// Reads a server entry.
void from_json(const Json& in, ServerEntry& value);
/// Writes an evaluation entry.
void to_json(Json& out, const EvaluationEntry& value);
/// Reads an evaluation entry.
void from_json(const Json& in, EvaluationEntry& value);
/// Writes a per_rank entry.
void to_json(Json& out, const RankEntry& value);
/// Reads a per_rank entry.
void from_json(const Json& in, RankEntry& value);
/// Writes the `train` object.
void to_json(Json& out, const TrainSummary& value);
/// Reads the `train` object.
void from_json(const Json& in, TrainSummary& value);
/// Writes the `server` object.
void to_json(Json& out, const ServerSummary& value);
/// Reads the `server` object.
void from_json(const Json& in, ServerSummary& value);
/// Writes an epochs[] record.
void to_json(Json& out, const EpochSummary& value);
/// Reads an epochs[] record.
void from_json(const Json& in, EpochSummary& value);
/// Writes a load[] entry.
void to_json(Json& out, const LoadEntry& value);
/// Reads a load[] entry.
void from_json(const Json& in, LoadEntry& value);
/// Writes a resumed_from object.
void to_json(Json& out, const ResumedFrom& value);
/// Reads a resumed_from object.
void from_json(const Json& in, ResumedFrom& value);
/// Writes the whole results file.
void to_json(Json& out, const ResultsFile& value);
/// Reads the whole results file; a format other than kResultsFormat throws SchemaError at key `format`.
void from_json(const Json& in, ResultsFile& value);

}  // namespace psbench::results
