#include "results/results_file.hpp"

#include <string>

#include "results/schema_fields.hpp"

namespace psbench::results {

// Each fields() names every member of a struct under its results-file key, for const (writing) and
// non-const (reading) values alike.

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
}

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

template <FieldsOf<ModelInfo> Self, class Visit>
void fields(Self& m, Visit&& visit) {
  visit("spec", m.spec);
  visit("parameters", m.parameters);
  visit("parameter_bytes", m.parameter_bytes);
  visit("flops_per_step", m.flops_per_step);
}

template <FieldsOf<Phases> Self, class Visit>
void fields(Self& p, Visit&& visit) {
  for (std::size_t i = 0; i < kPhaseCount; ++i) visit(phase_name(static_cast<Phase>(i)), p.seconds[i]);
}

template <FieldsOf<Visits> Self, class Visit>
void fields(Self& v, Visit&& visit) {
  visit("min", v.min);
  visit("max", v.max);
  visit("exact_epochs", v.exact_epochs);
}

template <FieldsOf<LoadTiming> Self, class Visit>
void fields(Self& l, Visit&& visit) {
  visit("bytes", l.bytes);
  visit("read_s", l.read_s);
  visit("wait_s", l.wait_s);
  visit("mb_per_s", l.mb_per_s);
  visit("mode", l.mode);
  visit("collective", l.collective);
}

template <FieldsOf<WorkerEpoch> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("epoch", e.epoch);
  visit("steps", e.steps);
  visit("samples", e.samples);
  visit("loss_sum", e.loss_sum);
  visit("started_at", e.started_at);
  visit("finished_at", e.finished_at);
  visit("test_accuracy", e.test_accuracy);
}

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
}

template <FieldsOf<Staleness> Self, class Visit>
void fields(Self& s, Visit&& visit) {
  visit("mean", s.mean);
  visit("max", s.max);
  visit("hist", s.hist);
}

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
}

template <FieldsOf<EvaluationEntry> Self, class Visit>
void fields(Self& e, Visit&& visit) {
  visit("accuracy", e.accuracy);
  visit("mean_loss", e.mean_loss);
  visit("samples", e.samples);
  visit("seconds", e.seconds);
  visit("parameter_checksum", e.parameter_checksum);
}

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
}

template <FieldsOf<ServerSummary> Self, class Visit>
void fields(Self& s, Visit&& visit) {
  visit("updates", s.updates);
  visit("updates_per_s", s.updates_per_s);
  visit("utilization", s.utilization);
  visit("staleness", s.staleness);
}

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
}

void to_json(Json& out, const Config& value) { write_fields(out, value); }
void from_json(const Json& in, Config& value) { read_fields(in, value); }
void to_json(Json& out, const Environment& value) { write_fields(out, value); }
void from_json(const Json& in, Environment& value) { read_fields(in, value); }
void to_json(Json& out, const ModelInfo& value) { write_fields(out, value); }
void from_json(const Json& in, ModelInfo& value) { read_fields(in, value); }
void to_json(Json& out, const Phases& value) { write_fields(out, value); }
void from_json(const Json& in, Phases& value) { read_fields(in, value); }
void to_json(Json& out, const Visits& value) { write_fields(out, value); }
void from_json(const Json& in, Visits& value) { read_fields(in, value); }
void to_json(Json& out, const LoadTiming& value) { write_fields(out, value); }
void from_json(const Json& in, LoadTiming& value) { read_fields(in, value); }
void to_json(Json& out, const WorkerEpoch& value) { write_fields(out, value); }
void from_json(const Json& in, WorkerEpoch& value) { read_fields(in, value); }
void to_json(Json& out, const WorkerEntry& value) { write_fields(out, value); }
void from_json(const Json& in, WorkerEntry& value) { read_fields(in, value); }
void to_json(Json& out, const Staleness& value) { write_fields(out, value); }
void from_json(const Json& in, Staleness& value) { read_fields(in, value); }
void to_json(Json& out, const ServerEntry& value) { write_fields(out, value); }
void from_json(const Json& in, ServerEntry& value) { read_fields(in, value); }
void to_json(Json& out, const EvaluationEntry& value) { write_fields(out, value); }
void from_json(const Json& in, EvaluationEntry& value) { read_fields(in, value); }
void to_json(Json& out, const RankEntry& value) { write_fields(out, value); }
void from_json(const Json& in, RankEntry& value) { read_fields(in, value); }
void to_json(Json& out, const TrainSummary& value) { write_fields(out, value); }
void from_json(const Json& in, TrainSummary& value) { read_fields(in, value); }
void to_json(Json& out, const ServerSummary& value) { write_fields(out, value); }
void from_json(const Json& in, ServerSummary& value) { read_fields(in, value); }

void to_json(Json& out, const EpochSummary& value) {
  write_fields(out, value);
  // Documented as "fraction or null": an epoch without a server or a test evaluation says so explicitly.
  if (!value.utilization) out["utilization"] = nullptr;
  if (!value.test_accuracy) out["test_accuracy"] = nullptr;
}
void from_json(const Json& in, EpochSummary& value) { read_fields(in, value); }

void to_json(Json& out, const LoadEntry& value) {
  write_fields(out, value.timing);
  write_key(out, "worker", value.worker);
  write_key(out, "rank", value.rank);
}
void from_json(const Json& in, LoadEntry& value) {
  read_fields(in, value.timing);
  read_key(in, "worker", value.worker);
  read_key(in, "rank", value.rank);
}

void to_json(Json& out, const ResultsFile& value) { write_fields(out, value); }

void from_json(const Json& in, ResultsFile& value) {
  read_key(in, "format", value.format);
  if (value.format != kResultsFormat) {
    throw SchemaError("format", "is " + std::to_string(value.format) +
                                    ", but this psbench reads results files of format " +
                                    std::to_string(kResultsFormat) + " only");
  }
  read_fields(in, value);
}

}  // namespace psbench::results
