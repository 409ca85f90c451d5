#include "results/results_file.hpp"

#include <string>

#include "results/results_fields.hpp"

namespace psbench::results {

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
void to_json(Json& out, const ExchangeTiming& value) { write_fields(out, value); }
void from_json(const Json& in, ExchangeTiming& value) { read_fields(in, value); }
void to_json(Json& out, const WorkerEntry& value) { write_fields(out, value); }
void from_json(const Json& in, WorkerEntry& value) { read_fields(in, value); }
void to_json(Json& out, const CurvePoint& value) { write_fields(out, value); }
void from_json(const Json& in, CurvePoint& value) { read_fields(in, value); }
void to_json(Json& out, const Staleness& value) { write_fields(out, value); }
void from_json(const Json& in, Staleness& value) { read_fields(in, value); }
void to_json(Json& out, const ClockStats& value) { write_fields(out, value); }
void from_json(const Json& in, ClockStats& value) { read_fields(in, value); }
void to_json(Json& out, const ServerEntry& value) { write_fields(out, value); }
void from_json(const Json& in, ServerEntry& value) { read_fields(in, value); }
void to_json(Json& out, const EvaluationEntry& value) { write_fields(out, value); }
void from_json(const Json& in, EvaluationEntry& value) { read_fields(in, value); }
void to_json(Json& out, const RankEntry& value) { write_fields(out, value); }
void from_json(const Json& in, RankEntry& value) { read_fields(in, value); }
void to_json(Json& out, const TrainSummary& value) {
  write_fields(out, value);
  // Documented as "seconds or null": a run with a target it did not reach says so explicitly.
  if (!value.time_to_target_s) out["time_to_target_s"] = nullptr;
}
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

void to_json(Json& out, const ResumedFrom& value) { write_fields(out, value); }
void from_json(const Json& in, ResumedFrom& value) { read_fields(in, value); }

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
