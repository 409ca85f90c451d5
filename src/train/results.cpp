#include "train/results.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

namespace psbench::train {
namespace {

results::EpochSummary epoch_summary(const EpochRecord& record) {
  return {record.epoch,         record.samples,   record.steps,       record.seconds,
          record.samples_per_s, record.mean_loss, record.utilization, record.test_accuracy};
}

// Sums the workers' totals into the train section (all but the evaluation and the epochs' figures).
results::TrainSummary worker_totals(const std::vector<results::RankEntry>& per_rank) {
  results::TrainSummary train;
  train.visits = {std::numeric_limits<std::uint32_t>::max(), 0, std::numeric_limits<std::uint32_t>::max()};
  bool any_worker = false;
  for (const results::RankEntry& entry : per_rank) {
    if (!entry.worker) continue;
    const results::WorkerEntry& worker = *entry.worker;
    any_worker = true;
    train.steps += worker.steps;
    train.pushes += worker.pushes;
    for (const results::WorkerEpoch& tally : worker.epochs) train.samples += tally.samples;
    train.visits.min = std::min(train.visits.min, worker.visits.min);
    train.visits.max = std::max(train.visits.max, worker.visits.max);
    train.visits.exact_epochs = std::min(train.visits.exact_epochs, worker.visits.exact_epochs);
  }
  if (!any_worker) train.visits.min = train.visits.exact_epochs = 0;
  return train;
}

std::vector<results::LoadEntry> load_entries(const std::vector<results::RankEntry>& per_rank) {
  std::vector<results::LoadEntry> load;
  for (const results::RankEntry& entry : per_rank) {
    if (entry.worker) load.push_back({entry.worker->load, entry.worker->index, entry.rank});
  }
  return load;
}

}  // namespace

PhaseSeconds seconds_of(const PhaseTimer& timer) {
  PhaseSeconds seconds{};
  for (std::size_t p = 0; p < kPhaseCount; ++p) seconds[p] = timer.seconds(static_cast<Phase>(p));
  return seconds;
}

PhaseSeconds max_phases(const std::vector<results::RankEntry>& per_rank) {
  PhaseSeconds phases{};
  for (const results::RankEntry& entry : per_rank) {
    for (std::size_t p = 0; p < kPhaseCount; ++p) phases[p] = std::max(phases[p], entry.phases.seconds[p]);
  }
  return phases;
}

std::vector<EpochRecord> epoch_records(const std::vector<results::RankEntry>& per_rank) {
  std::vector<EpochRecord> records;
  std::vector<double> started;
  std::vector<double> finished;
  std::vector<double> loss_sums;
  // The evaluating (first) worker's evaluations during the epoch: not training time. The others waited for them
  // at the same time (lockstep), or paused for them (async): their waits are not subtracted a second time.
  std::vector<double> evaluations;
  for (const results::RankEntry& entry : per_rank) {
    if (!entry.worker) continue;
    for (const results::WorkerEpoch& tally : entry.worker->epochs) {
      const std::size_t e = tally.epoch;
      if (e >= records.size()) {
        records.resize(e + 1);
        started.resize(e + 1, std::numeric_limits<double>::max());
        finished.resize(e + 1, std::numeric_limits<double>::lowest());
        loss_sums.resize(e + 1, 0.0);
        evaluations.resize(e + 1, 0.0);
      }
      EpochRecord& record = records[e];
      record.epoch = tally.epoch;
      record.samples += tally.samples;
      record.steps += tally.steps;
      loss_sums[e] += tally.loss_sum;
      started[e] = std::min(started[e], tally.started_at);
      finished[e] = std::max(finished[e], tally.finished_at);
      if (tally.test_accuracy) record.test_accuracy = tally.test_accuracy;
      if (entry.worker->index == 0) evaluations[e] = tally.evaluation_s.value_or(0.0);
    }
  }
  std::vector<EpochRecord> ran;
  for (std::size_t e = 0; e < records.size(); ++e) {
    if (started[e] == std::numeric_limits<double>::max()) continue;  // before the epoch a resumed run began in
    EpochRecord& record = records[e];
    // An epoch starts when the previous one ended, or later when nothing ran in between (local mode's
    // evaluation after each epoch is not training time).
    const double start = e == 0 ? started[0] : std::max(started[e], finished[e - 1]);
    record.seconds = finished[e] - start - evaluations[e];
    record.samples_per_s = record.seconds > 0.0 ? static_cast<double>(record.samples) / record.seconds : 0.0;
    record.mean_loss = record.steps > 0 ? loss_sums[e] / static_cast<double>(record.steps) : 0.0;
    ran.push_back(record);
  }
  return ran;
}

std::optional<std::vector<results::CurvePoint>> training_curve(const std::vector<results::RankEntry>& per_rank) {
  for (const results::RankEntry& entry : per_rank) {
    if (entry.evaluation && entry.evaluation->curve) return entry.evaluation->curve;
  }
  return std::nullopt;
}

std::optional<double> time_to_target(const std::optional<std::vector<results::CurvePoint>>& curve,
                                     std::optional<double> target) {
  if (!curve || !target) return std::nullopt;
  for (const results::CurvePoint& point : *curve) {
    if (point.accuracy >= *target) return point.time_s;
  }
  return std::nullopt;
}

Evaluation final_evaluation(const std::vector<results::RankEntry>& per_rank) {
  for (const results::RankEntry& entry : per_rank) {
    if (entry.evaluation) {
      const results::EvaluationEntry& e = *entry.evaluation;
      return {e.accuracy, e.mean_loss, e.samples, e.seconds};
    }
  }
  return {};
}

namespace {

// Adds one server's clocks to the run's: held replies and seconds summed (per worker too), spread and lead at most.
void add_clocks(const results::ClockStats& server, std::optional<results::ClockStats>& run) {
  if (!run) run.emplace();
  run->held_replies += server.held_replies;
  run->held_s += server.held_s;
  if (run->held_s_by_worker.size() < server.held_s_by_worker.size()) {
    run->held_s_by_worker.resize(server.held_s_by_worker.size(), 0.0);
  }
  for (std::size_t w = 0; w < server.held_s_by_worker.size(); ++w) run->held_s_by_worker[w] += server.held_s_by_worker[w];
  run->max_clock_spread = std::max(run->max_clock_spread, server.max_clock_spread);
  run->max_lead = std::max(run->max_lead, server.max_lead);
}

}  // namespace

results::ServerSummary server_summary(const std::vector<results::RankEntry>& per_rank) {
  results::ServerSummary summary;
  double service = 0.0;
  double serve = 0.0;
  double longest_serve = 0.0;
  double staleness_sum = 0.0;
  std::vector<std::uint64_t>& hist = summary.staleness.hist;
  for (const results::RankEntry& entry : per_rank) {
    if (!entry.server) continue;
    const results::ServerEntry& server = *entry.server;
    summary.updates += server.updates;
    service += server.service_s;
    serve += server.serve_s;
    longest_serve = std::max(longest_serve, server.serve_s);
    staleness_sum += server.staleness.mean * static_cast<double>(server.updates);
    summary.staleness.max = std::max(summary.staleness.max, server.staleness.max);
    const std::vector<std::uint64_t>& counts = server.staleness.hist;
    if (counts.size() > hist.size()) hist.resize(counts.size(), 0);
    for (std::size_t i = 0; i < counts.size(); ++i) hist[i] += counts[i];
    if (server.clocks) add_clocks(*server.clocks, summary.clocks);
  }
  summary.updates_per_s = longest_serve > 0.0 ? static_cast<double>(summary.updates) / longest_serve : 0.0;
  summary.utilization = serve > 0.0 ? service / serve : 0.0;
  summary.staleness.mean = summary.updates > 0 ? staleness_sum / static_cast<double>(summary.updates) : 0.0;
  return summary;
}

results::ResultsFile assemble_results(const RunFacts& facts, std::vector<results::RankEntry> per_rank,
                                      results::Environment env) {
  std::vector<EpochRecord> epochs = epoch_records(per_rank);
  for (EpochRecord& record : epochs) {  // by epoch: a resumed run's first epoch may have no line of its own
    for (const EpochRecord& live : facts.live_epochs) {
      if (live.epoch == record.epoch && live.utilization) record.utilization = live.utilization;
    }
  }
  const Evaluation evaluation = final_evaluation(per_rank);

  results::ResultsFile file;
  file.config = options_config(facts.options);
  file.env = std::move(env);
  file.model = {facts.options.model_spec, facts.parameters, facts.parameters * sizeof(float), facts.flops_per_step};
  file.phases.seconds = max_phases(per_rank);
  file.train = worker_totals(per_rank);
  file.train.epochs = facts.options.epochs;
  for (const EpochRecord& record : epochs) file.train.training_s += record.seconds;
  file.train.samples_per_s =
      file.train.training_s > 0.0 ? static_cast<double>(file.train.samples) / file.train.training_s : 0.0;
  file.train.final_loss = epochs.empty() ? 0.0 : epochs.back().mean_loss;
  file.train.test_accuracy = evaluation.accuracy;
  file.train.test_loss = evaluation.mean_loss;
  file.train.test_samples = evaluation.samples;
  file.train.evaluation_s = evaluation.seconds;
  file.train.total_samples = facts.total_samples;
  file.train.parameter_checksum = facts.parameter_checksum;
  file.server = server_summary(per_rank);
  for (const EpochRecord& record : epochs) file.epochs.push_back(epoch_summary(record));
  file.load = load_entries(per_rank);
  file.resumed_from = facts.resumed_from;
  file.curve = training_curve(per_rank);
  file.train.time_to_target_s = time_to_target(file.curve, facts.options.target_accuracy);
  file.per_rank = std::move(per_rank);
  return file;
}

std::string checksum_of(const std::vector<float>& values) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (const float value : values) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &value, sizeof bytes);
    for (const unsigned char byte : bytes) {
      hash ^= byte;
      hash *= 0x100000001B3ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace psbench::train
