#pragma once

#include <cstdint>
#include <string>

#include "perf/calibration.hpp"
#include "perf/model_shape.hpp"
#include "perf/platform_spec.hpp"

namespace psbench::perf {

/// How workers read their data at start-up (psbench train --io).
enum class IoMode { kSequential, kParallel };
/// How much each worker reads (psbench train --read).
enum class ReadMode { kWhole, kPartition };

/// Test samples per evaluation call: train's evaluate_on normalises and evaluates 128 at a time.
inline constexpr int kEvaluationChunk = 128;

/// How the workers combine their work (psbench train --mode, without local): through parameter servers, an
/// allreduce of the gradient every step, or local SGD with one allreduce of the model per block.
enum class Learner { kAsync, kSync, kBmuf, kAverage };

/// The run a prediction is for, without the worker and server counts.
struct Scenario {
  std::string model = "mlp:512,256";   ///< network spec
  InputShape input;                    ///< sample shape and classes
  int sample_bytes = 785;              ///< stored bytes per sample (image plus label): 1x28x28 uint8 + 1
  int batch = 64;                      ///< b
  std::uint64_t samples = 60000;       ///< n, training samples
  std::uint64_t test_samples = 10000;  ///< samples of the test split the final evaluation reads and evaluates
  int epochs = 1;                      ///< E
  IoMode io = IoMode::kSequential;     ///< --io
  ReadMode read = ReadMode::kWhole;    ///< --read
  PlatformSpec platform;               ///< where it runs
  int ranks_per_node = 0;              ///< r; 0: every rank on one node of `this`
  bool pipeline = false;               ///< --pipeline: a worker's exchange overlaps its next step
  int staleness = -1;                  ///< --staleness S in clocks; -1: unbounded
  bool delay_compensation = false;     ///< --delay-compensation: the servers apply DC-ASGD's update
  Learner learner = Learner::kAsync;   ///< --mode
  bool onebit = false;                 ///< --compress onebit: 1-bit SGD with error feedback (async and sync)
  std::string intra_node =
      "shared-memory";              ///< --intra-node: the exchange's path on `this` (shared-memory|messages|rma)
  std::uint64_t block_samples = 0;  ///< --block-samples: samples per worker per block (bmuf, average)
  std::string calib_path;           ///< calib.json it came from
};

/// The per-step and start-up costs of one (W, S) configuration, from the calibration: the model's inputs.
struct StepCosts {
  int workers = 1;                   ///< W
  int servers = 1;                   ///< S
  int nodes = 1;                     ///< nodes the W + S ranks occupy
  int cores_per_node = 1;            ///< c
  int ranks_per_node = 1;            ///< r, ranks on the busiest node
  double compute_s = 0.0;            ///< t_fb: forward+backward of one minibatch, stretched by core_sharing
  double core_sharing = 1.0;         ///< h: what a node's computing ranks sharing its cores cost beyond an even share
  double exchange_s = 0.0;           ///< t_pp: a worker's push and pull of all shards, without queueing
  double exchange_software_s = 0.0;  ///< the part of t_pp that is not bytes on a modelled link (all of it on `this`)
  double service_s = 0.0;            ///< D_s: one server's demand per update of its shard
  double link_s = 0.0;               ///< a shard's bytes on a server's link, each way (0 on `this`)
  double link_transfers = 2.0;       ///< shard transfers a remote update holds the links for (shard_link_transfers)
  double compute_cv = 0.0;           ///< coefficient of variation of t_fb
  double service_cv = 0.0;           ///< coefficient of variation of D_s
  double steps_per_worker = 0.0;     ///< E x ceil(ceil(n / W) / b): steps of the busiest worker
  double read_bytes = 0.0;           ///< bytes one worker reads at start-up
  double read_open_s = 0.0;          ///< fixed cost of one reader (open, set-up)
  double disk_sequential_Bps = 0.0;  ///< one reader's bandwidth
  double disk_parallel_Bps = 0.0;    ///< all readers together
  double read_later_s = 0.0;         ///< a reader after a node's first: fresh pages cleared slower (0: not calibrated)
  double setup_s = 0.0;              ///< set-up and stop outside the read, stretched by workers per core
  double evaluation_s = 0.0;         ///< the final evaluation: the test split's read and its evaluation calls
  double parameter_bytes = 0.0;      ///< 4 P
  double push_share = 1.0;           ///< a push's bytes over a pull's: 1, or with --compress onebit packed / 4 P
  double training_samples = 0.0;     ///< E x n: samples the whole run processes
  bool pipeline = false;             ///< each worker's push and pull overlap its next step (--pipeline)
  int staleness = -1;                ///< --staleness S: a server holds a reply while its worker leads by more; -1 off
  /// A server's time per update as psbench's protocol spends it: one push at a time, applied and replied to
  /// before the next, so on a network each update holds it for D_s plus link_transfers transfers of its shard
  /// (the pull overlaps the push's tail on full-duplex links), each through the slower of its own link and the
  /// worker's (t_pp less its software part, split over S).
  [[nodiscard]] double server_demand_s() const {
    if (link_s <= 0.0) return service_s;
    const double worker_side = (exchange_s > exchange_software_s ? exchange_s - exchange_software_s : 0.0) / servers;
    return service_s + (link_transfers * link_s > worker_side ? link_transfers * link_s : worker_side);
  }
  /// A worker's cycle when nothing queues: t_fb + t_pp + D_s, or with --pipeline the longer of the worker's
  /// own work (its compute and the software part of t_pp: the copies stay on its core) and its exchange's
  /// round trip, which then runs beside it: only the un-hidden part enters the cycle.
  [[nodiscard]] double unloaded_cycle_s() const {
    const double round_trip = exchange_s + service_s;
    const double own = compute_s + exchange_software_s;
    return pipeline ? (own > round_trip ? own : round_trip) : compute_s + round_trip;
  }
  /// Versions a push is staler by with --pipeline (0 without): it carries the weights of the step before the
  /// last reply, so one more cycle of every worker's updates, its own among them, lies behind it: W.
  [[nodiscard]] double pipeline_staleness() const { return pipeline ? workers : 0.0; }
  /// Workers on the busiest node: the readers that share its fresh pages and its cores.
  [[nodiscard]] int node_workers() const { return workers < ranks_per_node ? workers : ranks_per_node; }
  /// True when the ranks on a node outnumber its cores.
  [[nodiscard]] bool cores_shared() const { return ranks_per_node > cores_per_node; }
};

/// Transfers of one shard of shard_bytes that a remote exchange holds a full-duplex link for: 1 + K / N, N the
/// shard's chunks and K its server's receive ring (ps/protocol.hpp). The server clears K push chunks at once;
/// the rendezvous handshake of each pull chunk queues behind those K chunks on the worker's side, so the pull
/// starts once K / N of the push has crossed and then runs beside the rest of it: 2 for a shard of at most
/// kRingChunks chunks (push, then pull), 1.55 for 29 chunks (docs/rack.md, "Push and pull on one link").
double shard_link_transfers(double shard_bytes);

/// How much a node's set-up stretches when workers_per_core of its workers share each core: they build their models
/// at once, so max(1, workers_per_core).
double setup_stretch(double workers_per_core);

/// Name of a learner as the CLI spells it (train's --mode).
const char* learner_name(Learner learner);

/// Name of an I/O mode as the CLI spells it.
const char* io_mode_name(IoMode mode);
/// Name of a read mode as the CLI spells it.
const char* read_mode_name(ReadMode mode);

/// Derives the costs of W workers and S servers (S = 0 for the learners without servers, whose exchange it leaves
/// at 0: collective_costs adds it). Throws UserError for W below 1, S below 1 with --mode async, a batch below 1,
/// or a model the calibration cannot time.
StepCosts step_costs(const Calibration& calibration, const Scenario& scenario, int workers, int servers);

}  // namespace psbench::perf
