#include "perf/run_points.hpp"

#include <algorithm>

namespace psbench::perf {
namespace {

using common_phase = psbench::Phase;

double phase(const results::RankEntry& rank, common_phase which) { return rank.phases[which]; }

void add_reads(const results::ResultsFile& run, RunPoints& points) {
  double bytes = 0.0;
  double slowest = 0.0;
  for (const results::LoadEntry& entry : run.load) {
    bytes += static_cast<double>(entry.timing.bytes);
    slowest = std::max(slowest, entry.timing.read_s);
    if (run.config.io == "sequential" && entry.timing.read_s > 0.0)
      points.sequential_read.push_back({static_cast<double>(entry.timing.bytes), entry.timing.read_s});
  }
  if (run.config.io == "parallel" && slowest > 0.0) points.parallel_read_Bps.push_back(bytes / slowest);
}

double mean_service_per_update(const results::ResultsFile& run) {
  double busy = 0.0;
  double updates = 0.0;
  for (const results::RankEntry& rank : run.per_rank) {
    if (!rank.server) continue;
    busy += rank.server->service_s;
    updates += static_cast<double>(rank.server->updates);
  }
  return updates > 0.0 ? busy / updates : 0.0;
}

// The final evaluation, where the run made one; its test split's bytes at the training split's bytes per sample.
void add_evaluation(const results::ResultsFile& run, RunPoints& points) {
  if (run.train.test_samples == 0 || run.train.evaluation_s <= 0.0 || run.load.empty()) return;
  const double read_samples = run.config.read == "partition"
                                  ? static_cast<double>(run.train.total_samples) / std::max(1, run.env.workers)
                                  : static_cast<double>(run.train.total_samples);
  if (read_samples <= 0.0) return;
  const double sample_bytes = static_cast<double>(run.load.front().timing.bytes) / read_samples;
  const auto test = static_cast<double>(run.train.test_samples);
  points.evaluation[run.config.model].push_back({test, test * sample_bytes, run.train.evaluation_s});
}

}  // namespace

double read_end_s(const results::ResultsFile& run) {
  double end = 0.0;
  for (const results::LoadEntry& entry : run.load) end = std::max(end, entry.timing.wait_s + entry.timing.read_s);
  return end;
}

bool delay_compensated(const results::ResultsFile& run) {
  return std::any_of(run.per_rank.begin(), run.per_rank.end(), [](const results::RankEntry& rank) {
    return rank.server && rank.server->delay_compensation_bytes.value_or(0) > 0;
  });
}

std::string configuration_of(const results::ResultsFile& run) {
  const results::Config& c = run.config;
  return c.data + " " + c.model + " b" + std::to_string(c.batch) + " e" + std::to_string(c.epochs) + " " + c.mode +
         " " + c.io + "/" + c.read + (c.cold_cache ? " cold" : " warm") + " " + c.intra_node +
         (c.pipeline.value_or(false) ? " pipeline" : "") +
         (c.staleness.value_or(-1) >= 0 ? " s" + std::to_string(*c.staleness) : "") +
         (delay_compensated(run) ? " dc" + std::to_string(c.delay_compensation.value_or(0.0)) : "") +
         (c.compress.value_or("none") != "none" ? " " + *c.compress : "") +
         (c.block_samples.value_or(0) > 0 ? " block" + std::to_string(*c.block_samples) : "") + " W" +
         std::to_string(run.env.workers) + " S" + std::to_string(run.env.servers) + " seed" + std::to_string(c.seed);
}

void add_run(const results::ResultsFile& run, const std::string& path, RunPoints& points) {
  if (run.config.mode != "async") return;
  points.sources.push_back(path);
  points.total_s[configuration_of(run)].push_back(run.phases[common_phase::kTotal]);
  add_reads(run, points);
  if (run.env.workers + run.env.servers > run.env.cores) return;  // contended: every time holds waits for a core
  // A delay-compensated run's servers apply another update (its own benchmark's fit), not D_s's; a 1-bit run's
  // also dequantize each push, and its workers quantize: neither is the fp32 exchange the fits describe.
  if (delay_compensated(run) || run.config.compress.value_or("none") != "none") return;
  const double service = mean_service_per_update(run);
  const double bytes = static_cast<double>(run.model.parameter_bytes);
  if (service > 0.0) points.service_s_vs_shard_bytes.push_back({bytes / std::max(1, run.env.servers), service});
  // Everything the run's total holds beyond its read and its training: set-up before the first step (the
  // model, the exchange's buffers, the first weights) and the stop after the last.
  points.setup_s.push_back(run.phases[common_phase::kTotal] - run.train.training_s - read_end_s(run));
  add_evaluation(run, points);
  for (const results::RankEntry& rank : run.per_rank) {
    if (!rank.worker || rank.worker->steps == 0) continue;
    const auto steps = static_cast<double>(rank.worker->steps);
    points.step_s_vs_batch[run.config.model].push_back(
        {static_cast<double>(run.config.batch), phase(rank, common_phase::kCompute) / steps});
    // A pipelined run's push and pull phases hold only the exchange's un-hidden part, not t_pp.
    if (run.config.pipeline.value_or(false)) continue;
    const double exchange = (phase(rank, common_phase::kPush) + phase(rank, common_phase::kPull)) / steps - service;
    points.exchange_s_vs_bytes.push_back({bytes, std::max(0.0, exchange)});
  }
}

}  // namespace psbench::perf
