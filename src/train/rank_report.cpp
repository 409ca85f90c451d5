#include "train/rank_report.hpp"

#include "common/resources.hpp"

namespace psbench::train {
namespace {

nlohmann::json staleness_json(const ps::StalenessHistogram& histogram) {
  return {{"mean", histogram.mean()}, {"max", histogram.max()}, {"hist", histogram.counts()}};
}

nlohmann::json worker_json(const WorkerReport& worker, double origin) {
  nlohmann::json epochs = nlohmann::json::array();
  for (std::size_t e = 0; e < worker.epochs.size(); ++e) {
    const EpochTally& tally = worker.epochs[e];
    nlohmann::json entry = {{"epoch", tally.epoch},
                            {"steps", tally.steps},
                            {"samples", tally.samples},
                            {"loss_sum", tally.loss_sum},
                            {"started_at", tally.started_at - origin},
                            {"finished_at", tally.finished_at - origin}};
    if (e < worker.epoch_test_accuracy.size() && worker.epoch_test_accuracy[e]) {
      entry["test_accuracy"] = *worker.epoch_test_accuracy[e];
    }
    epochs.push_back(std::move(entry));
  }
  std::uint64_t steps = 0;
  for (const EpochTally& tally : worker.epochs) steps += tally.steps;
  return {{"index", worker.index},
          {"samples", worker.samples},
          {"first_index", worker.first_index},
          {"steps", steps},
          {"pushes", worker.pushes},
          {"visits",
           {{"min", worker.visits.min}, {"max", worker.visits.max}, {"exact_epochs", worker.visits.exact_epochs}}},
          {"epochs", std::move(epochs)},
          {"load",
           {{"bytes", worker.load.bytes_read},
            {"read_s", worker.load.read_seconds},
            {"wait_s", worker.load.wait_seconds},
            {"mb_per_s", worker.load.megabytes_per_s},
            {"mode", worker.load.mode},
            {"collective", worker.load.collective}}}};
}

nlohmann::json server_json(const ServerReport& server) {
  const ps::ServerStats& stats = server.stats;
  const double utilization = stats.serve_seconds > 0.0 ? stats.service_seconds / stats.serve_seconds : 0.0;
  return {{"shard", server.shard},
          {"shard_begin", server.shard_begin},
          {"shard_size", server.shard_size},
          {"updates", stats.updates},
          {"service_s", stats.service_seconds},
          {"apply_s", stats.apply_seconds},
          {"idle_s", stats.idle_seconds},
          {"serve_s", stats.serve_seconds},
          {"utilization", utilization},
          {"staleness", staleness_json(stats.staleness)}};
}

}  // namespace

nlohmann::json phases_json(const PhaseSeconds& phases) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t p = 0; p < kPhaseCount; ++p) out[std::string(phase_name(static_cast<Phase>(p)))] = phases[p];
  return out;
}

nlohmann::json rank_report_json(int rank, const std::string& host, const PhaseSeconds& phases,
                                const std::optional<WorkerReport>& worker, const std::optional<ServerReport>& server,
                                const std::optional<Evaluation>& evaluation, double origin) {
  nlohmann::json entry = {{"rank", rank},
                          {"role", server ? "server" : "worker"},
                          {"host", host},
                          {"peak_rss_bytes", peak_rss_bytes()},
                          {"phases", phases_json(phases)}};
  if (worker) entry["worker"] = worker_json(*worker, origin);
  if (server) entry["server"] = server_json(*server);
  if (evaluation) {
    entry["evaluation"] = {{"accuracy", evaluation->accuracy},
                           {"mean_loss", evaluation->mean_loss},
                           {"samples", evaluation->samples},
                           {"seconds", evaluation->seconds}};
  }
  return entry;
}

}  // namespace psbench::train
