#include "train/rank_report.hpp"

#include "common/resources.hpp"

namespace psbench::train {
namespace {

results::Staleness staleness_of(const ps::StalenessHistogram& histogram) {
  return {histogram.mean(), histogram.max(), histogram.counts()};
}

results::WorkerEntry worker_entry(const WorkerReport& worker, double origin) {
  results::WorkerEntry entry;
  entry.index = worker.index;
  entry.samples = worker.samples;
  entry.first_index = worker.first_index;
  entry.pushes = worker.pushes;
  entry.visits = {worker.visits.min, worker.visits.max, worker.visits.exact_epochs};
  for (std::size_t e = 0; e < worker.epochs.size(); ++e) {
    const EpochTally& tally = worker.epochs[e];
    results::WorkerEpoch epoch{
        tally.epoch,  tally.steps, tally.samples, tally.loss_sum, tally.started_at - origin, tally.finished_at - origin,
        std::nullopt, std::nullopt};
    if (e < worker.epoch_test_accuracy.size()) epoch.test_accuracy = worker.epoch_test_accuracy[e];
    if (tally.evaluation_s > 0.0) epoch.evaluation_s = tally.evaluation_s;
    entry.steps += tally.steps;
    entry.epochs.push_back(epoch);
  }
  const data::LoadTiming& load = worker.load;
  entry.load = {load.bytes_read,      load.read_seconds, load.wait_seconds,
                load.megabytes_per_s, load.mode,         load.collective};
  if (worker.exchange) {
    const ExchangeTotals& exchange = *worker.exchange;
    entry.exchange = results::ExchangeTiming{exchange.wall_s, exchange.wait_s,
                                             exchange.wall_s > 0.0 ? 1.0 - exchange.wait_s / exchange.wall_s : 0.0,
                                             exchange.bytes_sent, exchange.bytes_received};
  }
  return entry;
}

results::ServerEntry server_entry(const ServerReport& server) {
  const ps::ServerStats& stats = server.stats;
  results::ServerEntry entry;
  entry.shard = server.shard;
  entry.shard_begin = server.shard_begin;
  entry.shard_size = server.shard_size;
  entry.updates = stats.updates;
  entry.service_s = stats.service_seconds;
  entry.apply_s = stats.apply_seconds;
  entry.idle_s = stats.idle_seconds;
  entry.serve_s = stats.serve_seconds;
  entry.utilization = stats.serve_seconds > 0.0 ? stats.service_seconds / stats.serve_seconds : 0.0;
  entry.staleness = staleness_of(stats.staleness);
  entry.clocks = results::ClockStats{stats.held_replies, stats.held_seconds, stats.held_seconds_by_worker,
                                     stats.max_clock_spread, stats.max_lead};
  entry.delay_compensation_bytes = server.delay_compensation_bytes;
  return entry;
}

}  // namespace

results::RankEntry rank_entry(int rank, const PhaseSeconds& phases, const std::optional<WorkerReport>& worker,
                              const std::optional<ServerReport>& server, const std::optional<Evaluation>& evaluation,
                              double origin) {
  results::RankEntry entry;
  entry.rank = rank;
  entry.role = server ? "server" : "worker";
  entry.host = host_name();
  entry.cores = online_cores();
  entry.peak_rss_bytes = peak_rss_bytes();
  entry.phases.seconds = phases;
  if (worker) entry.worker = worker_entry(*worker, origin);
  if (server) entry.server = server_entry(*server);
  if (evaluation) {
    entry.evaluation = results::EvaluationEntry{
        evaluation->accuracy, evaluation->mean_loss, evaluation->samples, evaluation->seconds, "", std::nullopt};
    if (worker && !worker->curve.empty()) entry.evaluation->curve = worker->curve;
  }
  return entry;
}

}  // namespace psbench::train
