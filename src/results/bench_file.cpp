#include "results/bench_file.hpp"

#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "results/schema_fields.hpp"

namespace psbench::results {
namespace {

// Keys of a benchmark entry that Google Benchmark itself writes; every other numeric key is a user counter.
constexpr std::array<std::string_view, 25> kGoogleBenchmarkKeys = {"name",
                                                                   "family_index",
                                                                   "per_family_instance_index",
                                                                   "run_name",
                                                                   "run_type",
                                                                   "repetitions",
                                                                   "repetition_index",
                                                                   "threads",
                                                                   "iterations",
                                                                   "real_time",
                                                                   "cpu_time",
                                                                   "time_unit",
                                                                   "aggregate_name",
                                                                   "aggregate_unit",
                                                                   "error_occurred",
                                                                   "error_message",
                                                                   "label",
                                                                   "big_o",
                                                                   "cpu_coefficient",
                                                                   "real_coefficient",
                                                                   "rms",
                                                                   "allocs_per_iter",
                                                                   "max_bytes_used",
                                                                   "total_allocated_bytes",
                                                                   "net_heap_growth"};

bool is_google_benchmark_key(std::string_view key) {
  for (const std::string_view known : kGoogleBenchmarkKeys) {
    if (key == known) return true;
  }
  return false;
}

// A whole number written as text (Google Benchmark's custom context values are strings).
int integer_from_text(const Json& in, std::string_view key) {
  std::string text;
  read_key(in, key, text);
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw SchemaError(std::string(key), "must be a whole number as text, found '" + text + "'");
  }
  return value;
}

// A JSON object of strings written as text.
std::map<std::string, std::string> object_from_text(const Json& in, std::string_view key) {
  std::string text;
  read_key(in, key, text);
  const Json parsed = Json::parse(text, nullptr, false);
  std::map<std::string, std::string> value;
  try {
    if (parsed.is_discarded()) throw SchemaError("", "must hold a JSON object as text, found '" + text + "'");
    read_value(parsed, value);
  } catch (SchemaError& error) {
    error.prefix_key(key);
    throw;
  }
  return value;
}

void check_time_unit(const std::string& unit) {
  if (unit != "ns" && unit != "us" && unit != "ms" && unit != "s") {
    throw SchemaError("time_unit", "must be ns, us, ms or s, found '" + unit + "'");
  }
}

}  // namespace

template <FieldsOf<BenchmarkContext> Self, class Visit>
void fields(Self& c, Visit&& visit) {
  visit("date", c.date);
  visit("host_name", c.host_name);
  visit("executable", c.executable);
  visit("num_cpus", c.num_cpus);
  visit("mhz_per_cpu", c.mhz_per_cpu);
  visit("library_build_type", c.library_build_type);
}

template <FieldsOf<GoogleBenchmarkFile> Self, class Visit>
void fields(Self& f, Visit&& visit) {
  visit("context", f.context);
  visit("benchmarks", f.benchmarks);
}

template <FieldsOf<SaturationContext> Self, class Visit>
void fields(Self& c, Visit&& visit) {
  visit("host", c.host);
  visit("cores", c.cores);
  visit("cpu", c.cpu);
  visit("onednn_isa", c.onednn_isa);
  visit("libraries", c.libraries);
  visit("llc_bytes", c.llc_bytes);
  visit("git_commit", c.git_commit);
  visit("date", c.date);
}

template <FieldsOf<SaturationPoint> Self, class Visit>
void fields(Self& p, Visit&& visit) {
  visit("clients", p.clients);
  visit("updates_per_s", p.updates_per_s);
  visit("utilization", p.utilization);
  visit("response_us", p.response_us);
  visit("queue_length", p.queue_length);
  visit("service_us", p.service_us);
  visit("server_cpu_us", p.server_cpu_us);
}

template <FieldsOf<SaturationRun> Self, class Visit>
void fields(Self& r, Visit&& visit) {
  visit("servers", r.servers);
  visit("parameters", r.parameters);
  visit("think_us", r.think_us);
  visit("think_measured_us", r.think_measured_us);
  visit("service_us", r.service_us);
  visit("service_cv", r.service_cv);
  visit("service_busy_us", r.service_busy_us);
  visit("busy_clients", r.busy_clients);
  visit("busy_updates_per_s", r.busy_updates_per_s);
  visit("client_cpu_us", r.client_cpu_us);
  visit("server_cpu_busy_us", r.server_cpu_busy_us);
  visit("window_huge_pages", r.window_huge_pages);
  visit("knee_clients", r.knee_clients);
  visit("knee_model", r.knee_model);
  visit("points", r.points);
}

template <FieldsOf<SaturationFile> Self, class Visit>
void fields(Self& f, Visit&& visit) {
  visit("format", f.format);
  visit("benchmark", f.benchmark);
  visit("context", f.context);
  visit("note", f.note);
  visit("runs", f.runs);
}

void to_json(Json& out, const PsbenchContext& value) {
  if (!out.is_object()) out = Json::object();
  write_key(out, "psbench_host", value.host);
  write_key(out, "psbench_cores", std::to_string(value.cores));
  write_key(out, "psbench_cpu", value.cpu);
  write_key(out, "psbench_onednn_isa", value.onednn_isa);
  Json libraries;
  write_value(libraries, value.libraries);
  write_key(out, "psbench_libraries", libraries.dump());
  write_key(out, "psbench_git_commit", value.git_commit);
}

void from_json(const Json& in, PsbenchContext& value) {
  read_key(in, "psbench_host", value.host);
  value.cores = integer_from_text(in, "psbench_cores");
  read_key(in, "psbench_cpu", value.cpu);
  read_key(in, "psbench_onednn_isa", value.onednn_isa);
  value.libraries = object_from_text(in, "psbench_libraries");
  read_key(in, "psbench_git_commit", value.git_commit);
}

void to_json(Json& out, const BenchmarkContext& value) {
  write_fields(out, value);
  to_json(out, value.psbench);
}

void from_json(const Json& in, BenchmarkContext& value) {
  read_fields(in, value);
  from_json(in, value.psbench);
}

void to_json(Json& out, const BenchmarkRun& value) {
  out = Json::object();
  write_key(out, "name", value.name);
  write_key(out, "run_name", value.run_name);
  write_key(out, "run_type", value.run_type);
  if (!value.aggregate_name.empty()) write_key(out, "aggregate_name", value.aggregate_name);
  write_key(out, "threads", value.threads);
  write_key(out, "iterations", value.iterations);
  write_key(out, "real_time", value.real_time);
  write_key(out, "cpu_time", value.cpu_time);
  write_key(out, "time_unit", value.time_unit);
  if (!value.error_message.empty()) {
    write_key(out, "error_occurred", true);
    write_key(out, "error_message", value.error_message);
  }
  for (const auto& [name, counter] : value.counters) write_key(out, name, counter);
}

void from_json(const Json& in, BenchmarkRun& value) {
  read_key(in, "name", value.name);
  value.run_name = value.name;
  if (in.contains("run_name")) read_key(in, "run_name", value.run_name);
  read_key(in, "run_type", value.run_type);
  value.aggregate_name.clear();
  if (in.contains("aggregate_name")) read_key(in, "aggregate_name", value.aggregate_name);
  value.threads = 1;
  if (in.contains("threads")) read_key(in, "threads", value.threads);
  read_key(in, "iterations", value.iterations);
  read_key(in, "real_time", value.real_time);
  read_key(in, "cpu_time", value.cpu_time);
  read_key(in, "time_unit", value.time_unit);
  check_time_unit(value.time_unit);
  bool failed = false;
  if (in.contains("error_occurred")) read_key(in, "error_occurred", failed);
  value.error_message.clear();
  if (failed) read_key(in, "error_message", value.error_message);
  value.counters.clear();
  for (const auto& [key, member] : in.items()) {
    if (!is_google_benchmark_key(key) && member.is_number()) value.counters[key] = member.get<double>();
  }
}

void to_json(Json& out, const GoogleBenchmarkFile& value) { write_fields(out, value); }
void from_json(const Json& in, GoogleBenchmarkFile& value) { read_fields(in, value); }
void to_json(Json& out, const SaturationContext& value) { write_fields(out, value); }
void from_json(const Json& in, SaturationContext& value) { read_fields(in, value); }
void to_json(Json& out, const SaturationPoint& value) { write_fields(out, value); }
void from_json(const Json& in, SaturationPoint& value) { read_fields(in, value); }
void to_json(Json& out, const SaturationRun& value) { write_fields(out, value); }
void from_json(const Json& in, SaturationRun& value) { read_fields(in, value); }
void to_json(Json& out, const SaturationFile& value) { write_fields(out, value); }

void from_json(const Json& in, SaturationFile& value) {
  read_key(in, "format", value.format);
  if (value.format != kSaturationFormat) {
    throw SchemaError("format", "is " + std::to_string(value.format) +
                                    ", but this psbench reads server_saturation files of format " +
                                    std::to_string(kSaturationFormat) + " only");
  }
  read_key(in, "benchmark", value.benchmark);
  if (value.benchmark != "server_saturation") {
    throw SchemaError("benchmark", "must be 'server_saturation', found '" + value.benchmark + "'");
  }
  read_fields(in, value);
}

double real_time_seconds(const BenchmarkRun& run) {
  if (run.time_unit == "ns") return run.real_time * 1e-9;
  if (run.time_unit == "us") return run.real_time * 1e-6;
  if (run.time_unit == "ms") return run.real_time * 1e-3;
  return run.real_time;
}

}  // namespace psbench::results
