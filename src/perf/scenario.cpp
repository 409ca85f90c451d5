#include "perf/scenario.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "perf/learner_fits.hpp"
#include "perf/wire_bytes.hpp"
#include "ps/protocol.hpp"

namespace psbench::perf {
namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

void check_counts(const Scenario& scenario, int workers, int servers) {
  if (workers < 1) throw UserError("worker count " + std::to_string(workers) + " is below 1");
  if (scenario.learner == Learner::kAsync && servers < 1)
    throw UserError("server count " + std::to_string(servers) + " is below 1");
  if (scenario.batch < 1) throw UserError("--batch " + std::to_string(scenario.batch) + " is below 1");
  if (scenario.epochs < 1) throw UserError("--epochs " + std::to_string(scenario.epochs) + " is below 1");
  if (scenario.samples < 1) throw UserError("--samples must be at least 1");
  if (scenario.staleness < -1) {
    throw UserError("--staleness must be 0 or more clocks, got " + std::to_string(scenario.staleness));
  }
}

// DC-ASGD's update of a shard of shard_bytes: its own benchmark's fit; a calibration without it cannot say.
double compensated_update_s(const Calibration& calibration, double shard_bytes) {
  if (calibration.update_compensated.points == 0) {
    throw UserError(
        "the calibration has no delay-compensated update (BM_DelayCompensatedUpdate in "
        "server_update.json): run bench/run_all.sh --only server_update and calibrate again");
  }
  return calibration.update_compensated.at(shard_bytes);
}

// Where the ranks go: all on one node of `this`; elsewhere r per node (a rack with fewer nodes than that
// needs packs more ranks on each).
void place(const Scenario& scenario, StepCosts& costs) {
  const int ranks = costs.workers + costs.servers;
  const PlatformSpec& platform = scenario.platform;
  costs.cores_per_node = std::max(1, platform.cores_per_node);
  if (platform.kind == PlatformKind::kThis || scenario.ranks_per_node <= 0) {
    costs.nodes = platform.kind == PlatformKind::kThis ? 1 : std::max(1, platform.nodes);
    costs.ranks_per_node = (ranks + costs.nodes - 1) / costs.nodes;
    return;
  }
  costs.nodes = nodes_for(platform, ranks, scenario.ranks_per_node);
  if (platform.kind == PlatformKind::kRack) costs.nodes = std::min(costs.nodes, platform.nodes);
  costs.ranks_per_node = (ranks + costs.nodes - 1) / costs.nodes;
}

// Bytes of one push of all shards: the fp32 vector, or with --compress onebit each shard's columns packed.
double push_bytes(const Scenario& scenario, const ModelShape& shape, int servers) {
  if (!scenario.onebit) return shape.parameter_bytes();
  return onebit_push_bytes(onebit_columns(shape.onebit_matrices), servers);
}

// The round trip's fit on `this` for the run's --intra-node path (the node's window, messages or RMA); the messages
// fit where that path's is not calibrated.
const LinearFit& intra_node_fit(const Calibration& calibration, const Scenario& scenario) {
  if (scenario.intra_node == "shared-memory" && calibration.exchange_shared_window.points > 0) {
    return calibration.exchange_shared_window;
  }
  if (scenario.intra_node == "rma" && calibration.exchange_rma.points > 0) return calibration.exchange_rma;
  return calibration.exchange_messages;
}

// Exchange time without queueing: on `this` the round trip of the run's path less the update it contains (its transfer
// scaled to the bytes the push and pull move, for 1-bit pushes); on a network
// the push and pull over the worker's link, overlapping as shard_link_transfers says, plus the messages fit's
// overhead. A 1-bit worker quantizes its gradient before the push; its server dequantizes each push.
void exchange_costs(const Calibration& calibration, const Scenario& scenario, const ModelShape& shape,
                    StepCosts& costs) {
  const double bytes = costs.parameter_bytes;
  const double shard_bytes = bytes / costs.servers;
  const double pushed = push_bytes(scenario, shape, costs.servers);
  costs.push_share = pushed / bytes;
  const double update =
      scenario.delay_compensation ? compensated_update_s(calibration, shard_bytes) : calibration.update.at(shard_bytes);
  costs.service_s = update * (calibration.service_scale.points > 0 ? calibration.service_scale.value : 1.0);
  const double quantize = scenario.onebit ? quantize_s(calibration, bytes) : 0.0;
  const double moved = 0.5 * (1.0 + costs.push_share);  // a round trip's bytes over the fp32 round trip's
  if (scenario.onebit) costs.service_s += dequantize_s(calibration, shard_bytes);
  const PlatformSpec& platform = scenario.platform;
  if (platform.kind == PlatformKind::kThis) {
    const LinearFit& path = intra_node_fit(calibration, scenario);
    costs.exchange_s = moved * std::max(0.0, path.at(bytes) - calibration.update.at(bytes)) + quantize;
    costs.exchange_software_s = costs.exchange_s;
  } else if (platform.kind == PlatformKind::kXml) {  // links unknown to the closed forms: the messages fit
    costs.exchange_s =
        moved * std::max(0.0, calibration.exchange_messages.at(bytes) - calibration.update.at(bytes)) + quantize;
    costs.exchange_software_s = calibration.exchange_messages.intercept + quantize;
  } else {
    // The pull starts once K/N of the push has crossed (shard_link_transfers); a packed push is shorter.
    const double latency = platform.latency_s + platform.hop_latency_s;
    costs.link_transfers = 1.0 + (shard_link_transfers(shard_bytes) - 1.0) * costs.push_share;
    costs.exchange_s = calibration.exchange_messages.intercept + 2.0 * latency +
                       costs.link_transfers * bytes / platform.link_Bps + quantize;
    costs.exchange_software_s = calibration.exchange_messages.intercept + quantize;
    costs.link_s = shard_bytes / (platform.server_link_Bps > 0.0 ? platform.server_link_Bps : platform.link_Bps);
  }
  if (calibration.exchange_overhead_s.points > 0) {  // runs may say the exchange costs less than the bench's
    costs.exchange_s = std::max(0.0, costs.exchange_s + calibration.exchange_overhead_s.value);
    costs.exchange_software_s = std::max(0.0, costs.exchange_software_s + calibration.exchange_overhead_s.value);
  }
}

void io_costs(const Calibration& calibration, const Scenario& scenario, StepCosts& costs) {
  const double stored = static_cast<double>(scenario.samples) * scenario.sample_bytes;
  costs.read_bytes = scenario.read == ReadMode::kWhole ? stored : std::ceil(stored / costs.workers);
  costs.read_open_s = calibration.disk_sequential.intercept;
  costs.disk_sequential_Bps = calibration.disk_sequential_Bps.value;
  // A read measured at several sizes keeps its medians per size: a reader of these bytes reads at the bandwidth the
  // medians give here (the line's slope is pulled between sizes whose cost per byte differs).
  const double measured = calibration.disk_sequential.table.empty()
                              ? 0.0
                              : calibration.disk_sequential.at(costs.read_bytes) - costs.read_open_s;
  if (measured > 0.0) costs.disk_sequential_Bps = costs.read_bytes / measured;
  costs.disk_parallel_Bps = calibration.disk_parallel_Bps.value;
  if (scenario.platform.kind == PlatformKind::kBlueWaters) {
    costs.disk_parallel_Bps =
        std::min(BlueWatersFacts::kLustreAggregateBps, costs.disk_sequential_Bps * static_cast<double>(costs.workers));
  }
  if (costs.disk_sequential_Bps <= 0.0) throw UserError("the calibration has no sequential disk bandwidth");
  if (costs.disk_parallel_Bps <= 0.0) costs.disk_parallel_Bps = costs.disk_sequential_Bps;
  if (calibration.disk_fresh_later.points > 0) costs.read_later_s = calibration.disk_fresh_later.at(costs.read_bytes);
}

// Set-up is each worker's CPU work (its model, primitives and buffers; a server's is lighter): the workers
// of the busiest node do it at once on its cores, so it stretches by their number over the cores.
double setup_seconds(const Calibration& calibration, const StepCosts& costs) {
  const double node_workers = std::min(costs.workers, costs.ranks_per_node);
  return calibration.setup_s.value * setup_stretch(node_workers / costs.cores_per_node);
}

// The final evaluation (train's evaluate_on after phases.total): the first worker reads the test split as a first
// reader does (t_open + bytes / B_seq) and evaluates it in calls of kEvaluationChunk samples.
double evaluation_seconds(const Calibration& calibration, const Scenario& scenario, const ModelShape& shape,
                          const StepCosts& costs) {
  const double test = static_cast<double>(scenario.test_samples);
  if (test <= 0.0) return 0.0;
  const double read = costs.read_open_s + test * scenario.sample_bytes / costs.disk_sequential_Bps;
  const double calls = std::ceil(test / kEvaluationChunk);
  const double chunk = std::min(test, static_cast<double>(kEvaluationChunk));
  return read + calls * evaluate_seconds(calibration, scenario.model, shape.flops_per_sample, static_cast<int>(chunk));
}

}  // namespace

double setup_stretch(double workers_per_core) { return std::max(1.0, workers_per_core); }

double shard_link_transfers(double shard_bytes) {
  const auto values = static_cast<std::size_t>(std::ceil(shard_bytes / sizeof(float)));
  return 1.0 + static_cast<double>(ps::ring_chunks(values)) / ps::chunk_count(values);
}

const char* learner_name(Learner learner) {
  switch (learner) {
    case Learner::kAsync: return "async";
    case Learner::kSync: return "sync";
    case Learner::kBmuf: return "bmuf";
    case Learner::kAverage: return "average";
  }
  return "async";
}

const char* io_mode_name(IoMode mode) { return mode == IoMode::kSequential ? "sequential" : "parallel"; }
const char* read_mode_name(ReadMode mode) { return mode == ReadMode::kWhole ? "whole" : "partition"; }

StepCosts step_costs(const Calibration& calibration, const Scenario& scenario, int workers, int servers) {
  check_counts(scenario, workers, servers);
  StepCosts costs;
  costs.workers = workers;
  costs.servers = servers;
  place(scenario, costs);
  const ModelShape shape = model_shape(scenario.model, scenario.input);
  costs.parameter_bytes = shape.parameter_bytes();
  costs.core_sharing =
      core_sharing_stretch(calibration, static_cast<double>(costs.node_workers()) / costs.cores_per_node);
  costs.compute_s =
      costs.core_sharing * compute_seconds(calibration, scenario.model, shape.flops_per_sample, scenario.batch);
  costs.compute_cv = calibration.compute_cv.value;
  costs.service_cv = calibration.service_cv.value;
  if (scenario.learner == Learner::kAsync) exchange_costs(calibration, scenario, shape, costs);
  const double partition = ceil_div(static_cast<double>(scenario.samples), workers);
  costs.steps_per_worker = scenario.epochs * ceil_div(partition, scenario.batch);
  costs.training_samples = static_cast<double>(scenario.epochs) * static_cast<double>(scenario.samples);
  costs.pipeline = scenario.pipeline;
  costs.staleness = scenario.staleness;
  io_costs(calibration, scenario, costs);
  costs.setup_s = setup_seconds(calibration, costs);
  costs.evaluation_s = evaluation_seconds(calibration, scenario, shape, costs);
  return costs;
}

}  // namespace psbench::perf
