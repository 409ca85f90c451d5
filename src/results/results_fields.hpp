#pragma once

#include <optional>
#include <string_view>
#include <type_traits>

#include "results/results_file.hpp"
#include "results/schema_fields.hpp"

namespace psbench::results {

// Each fields() names every member of a results-file struct under its key, for const (writing) and
// non-const (reading) values alike: the JSON schema and the binary rank codec share these lists.

/// Visits every member of Config with its key.
template <FieldsOf<Config> Self, class Visit>
void fields(Self& c, Visit&& visit) {
  visit("data", c.data);
  visit("model", c.model);
  visit("batch", c.batch);
  visit("epochs", c.epochs);
  visit("lr", c.lr);
  visit("momentum", c.momentum);
  visit("warmup_steps", c.warmup_steps);
  visit("servers", c.servers);
  visit("intra_node", c.intra_node);
  visit("mode", c.mode);
  visit("io", c.io);
  visit("read", c.read);
  visit("cold_cache", c.cold_cache);
  visit("threads", c.threads);
  visit("seed", c.seed);
  visit("out", c.out);
  visit("trace", c.trace);
  visit("quiet", c.quiet);
  visit("inject_fault", c.inject_fault);
  visit("straggler", c.straggler);
  visit("stall_timeout", c.stall_timeout);
  visit("checkpoint", c.checkpoint);
  visit("checkpoint_every", c.checkpoint_every);
  visit("resume", c.resume);
  visit("bucket_bytes", c.bucket_bytes);
  visit("pipeline", c.pipeline);
  visit("staleness", c.staleness);
  visit("eval_every", c.eval_every);
  visit("target_accuracy", c.target_accuracy);
  visit("stop_at_target", c.stop_at_target);
  visit("slow_evaluation", c.slow_evaluation);
  visit("delay_compensation", c.delay_compensation);
  visit("block_samples", c.block_samples);
  visit("block_momentum", c.block_momentum);
  visit("block_lr", c.block_lr);
  visit("nesterov", c.nesterov);
  visit("compress", c.compress);
  visit("error_feedback", c.error_feedback);
  visit("inter_node", c.inter_node);
}

/// Visits every member of Environment with its key.
template <FieldsOf<Environment> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("hosts", e.hosts);
  visit("ranks", e.ranks);
  visit("ranks_per_host", e.ranks_per_host);
  visit("cores", e.cores);
  visit("cores_per_host", e.cores_per_host);
  visit("servers", e.servers);
  visit("workers", e.workers);
  visit("threads_per_rank", e.threads_per_rank);
  visit("wait_spin_us", e.wait_spin_us);
  visit("libraries", e.libraries);
  visit("cpu", e.cpu);
  visit("onednn_isa", e.onednn_isa);
}

/// Visits every member of ModelInfo with its key.
template <FieldsOf<ModelInfo> Self, class Visit>
void fields(Self& m, Visit&& visit) {
  visit("spec", m.spec);
  visit("parameters", m.parameters);
  visit("parameter_bytes", m.parameter_bytes);
  visit("flops_per_step", m.flops_per_step);
}

/// Visits every member of Phases with its key.
template <FieldsOf<Phases> Self, class Visit>
void fields(Self& p, Visit&& visit) {
  const auto compress = static_cast<std::size_t>(Phase::kCompress);
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    if (i != compress) visit(phase_name(static_cast<Phase>(i)), p.seconds[i]);
  }
  // compress: always written; optional in format 2, whose older files lack it (read as 0).
  std::optional<double> compressed = p.seconds[compress];
  visit(phase_name(Phase::kCompress), compressed);
  if constexpr (!std::is_const_v<Self>) p.seconds[compress] = compressed.value_or(0.0);
}

/// Visits every member of Visits with its key.
template <FieldsOf<Visits> Self, class Visit>
void fields(Self& v, Visit&& visit) {
  visit("min", v.min);
  visit("max", v.max);
  visit("exact_epochs", v.exact_epochs);
}

/// Visits every member of LoadTiming with its key.
template <FieldsOf<LoadTiming> Self, class Visit>
void fields(Self& l, Visit&& visit) {
  visit("bytes", l.bytes);
  visit("read_s", l.read_s);
  visit("wait_s", l.wait_s);
  visit("mb_per_s", l.mb_per_s);
  visit("mode", l.mode);
  visit("collective", l.collective);
}

/// Visits every member of WorkerEpoch with its key.
template <FieldsOf<WorkerEpoch> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("epoch", e.epoch);
  visit("steps", e.steps);
  visit("samples", e.samples);
  visit("loss_sum", e.loss_sum);
  visit("started_at", e.started_at);
  visit("finished_at", e.finished_at);
  visit("test_accuracy", e.test_accuracy);
  visit("evaluation_s", e.evaluation_s);
}

/// Visits every member of CurvePoint with its key.
template <FieldsOf<CurvePoint> Self, class Visit>
void fields(Self& c, Visit&& visit) {
  visit("time_s", c.time_s);
  visit("steps", c.steps);
  visit("samples", c.samples);
  visit("epoch", c.epoch);
  visit("loss", c.loss);
  visit("accuracy", c.accuracy);
  visit("test_loss", c.test_loss);
}

/// Visits every member of ExchangeTiming with its key.
template <FieldsOf<ExchangeTiming> Self, class Visit>
void fields(Self& x, Visit&& visit) {
  visit("wall_s", x.wall_s);
  visit("wait_s", x.wait_s);
  visit("hidden_fraction", x.hidden_fraction);
  visit("bytes_sent", x.bytes_sent);
  visit("bytes_received", x.bytes_received);
}

/// Visits every member of WorkerEntry with its key.
template <FieldsOf<WorkerEntry> Self, class Visit>
void fields(Self& w, Visit&& visit) {
  visit("index", w.index);
  visit("samples", w.samples);
  visit("first_index", w.first_index);
  visit("steps", w.steps);
  visit("pushes", w.pushes);
  visit("visits", w.visits);
  visit("epochs", w.epochs);
  visit("load", w.load);
  visit("exchange", w.exchange);
}

/// Visits every member of Staleness with its key.
template <FieldsOf<Staleness> Self, class Visit>
void fields(Self& s, Visit&& visit) {
  visit("mean", s.mean);
  visit("max", s.max);
  visit("hist", s.hist);
}

/// Visits every member of ClockStats with its key.
template <FieldsOf<ClockStats> Self, class Visit>
void fields(Self& c, Visit&& visit) {
  visit("held_replies", c.held_replies);
  visit("held_s", c.held_s);
  visit("held_s_by_worker", c.held_s_by_worker);
  visit("max_clock_spread", c.max_clock_spread);
  visit("max_lead", c.max_lead);
}

/// Visits every member of ServerEntry with its key.
template <FieldsOf<ServerEntry> Self, class Visit>
void fields(Self& s, Visit&& visit) {
  visit("shard", s.shard);
  visit("shard_begin", s.shard_begin);
  visit("shard_size", s.shard_size);
  visit("updates", s.updates);
  visit("service_s", s.service_s);
  visit("apply_s", s.apply_s);
  visit("idle_s", s.idle_s);
  visit("serve_s", s.serve_s);
  visit("utilization", s.utilization);
  visit("staleness", s.staleness);
  visit("clocks", s.clocks);
  visit("delay_compensation_bytes", s.delay_compensation_bytes);
}

/// Visits every member of EvaluationEntry with its key.
template <FieldsOf<EvaluationEntry> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("accuracy", e.accuracy);
  visit("mean_loss", e.mean_loss);
  visit("samples", e.samples);
  visit("seconds", e.seconds);
  visit("parameter_checksum", e.parameter_checksum);
  visit("curve", e.curve);
}

/// Visits every member of RankEntry with its key.
template <FieldsOf<RankEntry> Self, class Visit>
void fields(Self& r, Visit&& visit) {
  visit("rank", r.rank);
  visit("role", r.role);
  visit("host", r.host);
  visit("cores", r.cores);
  visit("peak_rss_bytes", r.peak_rss_bytes);
  visit("phases", r.phases);
  visit("flops_per_step", r.flops_per_step);
  visit("worker", r.worker);
  visit("server", r.server);
  visit("evaluation", r.evaluation);
}

/// Visits every member of TrainSummary with its key.
template <FieldsOf<TrainSummary> Self, class Visit>
void fields(Self& t, Visit&& visit) {
  visit("epochs", t.epochs);
  visit("steps", t.steps);
  visit("samples", t.samples);
  visit("samples_per_s", t.samples_per_s);
  visit("training_s", t.training_s);
  visit("final_loss", t.final_loss);
  visit("test_accuracy", t.test_accuracy);
  visit("test_loss", t.test_loss);
  visit("test_samples", t.test_samples);
  visit("evaluation_s", t.evaluation_s);
  visit("total_samples", t.total_samples);
  visit("pushes", t.pushes);
  visit("visits", t.visits);
  visit("parameter_checksum", t.parameter_checksum);
  visit("time_to_target_s", t.time_to_target_s);
}

/// Visits every member of ServerSummary with its key.
template <FieldsOf<ServerSummary> Self, class Visit>
void fields(Self& s, Visit&& visit) {
  visit("updates", s.updates);
  visit("updates_per_s", s.updates_per_s);
  visit("utilization", s.utilization);
  visit("staleness", s.staleness);
  visit("clocks", s.clocks);
}

/// Visits every member of EpochSummary with its key.
template <FieldsOf<EpochSummary> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("epoch", e.epoch);
  visit("samples", e.samples);
  visit("steps", e.steps);
  visit("seconds", e.seconds);
  visit("samples_per_s", e.samples_per_s);
  visit("mean_loss", e.mean_loss);
  visit("utilization", e.utilization);
  visit("test_accuracy", e.test_accuracy);
}

/// Visits every member of ResumedFrom with its key.
template <FieldsOf<ResumedFrom> Self, class Visit>
void fields(Self& r, Visit&& visit) {
  visit("file", r.file);
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("servers", r.servers);
  visit("worker_epochs", r.worker_epochs);
  visit("worker_steps", r.worker_steps);
}

/// Visits every member of ResultsFile with its key.
template <FieldsOf<ResultsFile> Self, class Visit>
void fields(Self& f, Visit&& visit) {
  visit("format", f.format);
  visit("config", f.config);
  visit("env", f.env);
  visit("model", f.model);
  visit("phases", f.phases);
  visit("per_rank", f.per_rank);
  visit("train", f.train);
  visit("server", f.server);
  visit("epochs", f.epochs);
  visit("load", f.load);
  visit("resumed_from", f.resumed_from);
  visit("curve", f.curve);
}

}  // namespace psbench::results
