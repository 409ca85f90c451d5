#include "train/results.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "train/rank_report.hpp"

namespace psbench::train {
namespace {

constexpr int kResultsFormat = 1;

const nlohmann::json* evaluation_entry(const std::vector<nlohmann::json>& per_rank) {
  for (const auto& entry : per_rank) {
    if (entry.contains("evaluation")) return &entry["evaluation"];
  }
  return nullptr;
}

nlohmann::json epoch_json(const EpochRecord& record) {
  nlohmann::json entry = {{"epoch", record.epoch},
                          {"samples", record.samples},
                          {"steps", record.steps},
                          {"seconds", record.seconds},
                          {"samples_per_s", record.samples_per_s},
                          {"mean_loss", record.mean_loss},
                          {"utilization", nullptr},
                          {"test_accuracy", nullptr}};
  if (record.utilization) entry["utilization"] = *record.utilization;
  if (record.test_accuracy) entry["test_accuracy"] = *record.test_accuracy;
  return entry;
}

nlohmann::json server_section(const std::vector<nlohmann::json>& per_rank) {
  std::uint64_t updates = 0;
  double service = 0.0;
  double serve = 0.0;
  double longest_serve = 0.0;
  double staleness_sum = 0.0;
  std::uint64_t staleness_max = 0;
  std::vector<std::uint64_t> hist;
  for (const auto& entry : per_rank) {
    if (!entry.contains("server")) continue;
    const auto& server = entry["server"];
    const auto count = server["updates"].get<std::uint64_t>();
    updates += count;
    service += server["service_s"].get<double>();
    serve += server["serve_s"].get<double>();
    longest_serve = std::max(longest_serve, server["serve_s"].get<double>());
    staleness_sum += server["staleness"]["mean"].get<double>() * static_cast<double>(count);
    staleness_max = std::max(staleness_max, server["staleness"]["max"].get<std::uint64_t>());
    const auto counts = server["staleness"]["hist"].get<std::vector<std::uint64_t>>();
    if (counts.size() > hist.size()) hist.resize(counts.size(), 0);
    for (std::size_t i = 0; i < counts.size(); ++i) hist[i] += counts[i];
  }
  return {{"updates", updates},
          {"updates_per_s", longest_serve > 0.0 ? static_cast<double>(updates) / longest_serve : 0.0},
          {"utilization", serve > 0.0 ? service / serve : 0.0},
          {"staleness",
           {{"mean", updates > 0 ? staleness_sum / static_cast<double>(updates) : 0.0},
            {"max", staleness_max},
            {"hist", hist}}}};
}

}  // namespace

PhaseSeconds seconds_of(const PhaseTimer& timer) {
  PhaseSeconds seconds{};
  for (std::size_t p = 0; p < kPhaseCount; ++p) seconds[p] = timer.seconds(static_cast<Phase>(p));
  return seconds;
}

PhaseSeconds max_phases(const std::vector<nlohmann::json>& per_rank) {
  PhaseSeconds phases{};
  for (const auto& entry : per_rank) {
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      const double seconds = entry["phases"][std::string(phase_name(static_cast<Phase>(p)))].get<double>();
      phases[p] = std::max(phases[p], seconds);
    }
  }
  return phases;
}

std::vector<EpochRecord> epoch_records(const std::vector<nlohmann::json>& per_rank) {
  std::vector<EpochRecord> records;
  std::vector<double> started;
  std::vector<double> finished;
  std::vector<double> loss_sums;
  for (const auto& entry : per_rank) {
    if (!entry.contains("worker")) continue;
    for (const auto& tally : entry["worker"]["epochs"]) {
      const auto e = tally["epoch"].get<std::size_t>();
      if (e >= records.size()) {
        records.resize(e + 1);
        started.resize(e + 1, std::numeric_limits<double>::max());
        finished.resize(e + 1, std::numeric_limits<double>::lowest());
        loss_sums.resize(e + 1, 0.0);
      }
      EpochRecord& record = records[e];
      record.epoch = static_cast<std::uint32_t>(e);
      record.samples += tally["samples"].get<std::uint64_t>();
      record.steps += tally["steps"].get<std::uint64_t>();
      loss_sums[e] += tally["loss_sum"].get<double>();
      started[e] = std::min(started[e], tally["started_at"].get<double>());
      finished[e] = std::max(finished[e], tally["finished_at"].get<double>());
      if (tally.contains("test_accuracy")) record.test_accuracy = tally["test_accuracy"].get<double>();
    }
  }
  for (std::size_t e = 0; e < records.size(); ++e) {
    EpochRecord& record = records[e];
    // An epoch starts when the previous one ended, or later when nothing ran in between (local mode's
    // evaluation after each epoch is not training time).
    const double start = e == 0 ? started[0] : std::max(started[e], finished[e - 1]);
    record.seconds = finished[e] - start;
    record.samples_per_s = record.seconds > 0.0 ? static_cast<double>(record.samples) / record.seconds : 0.0;
    record.mean_loss = record.steps > 0 ? loss_sums[e] / static_cast<double>(record.steps) : 0.0;
  }
  return records;
}

Evaluation final_evaluation(const std::vector<nlohmann::json>& per_rank) {
  Evaluation evaluation;
  if (const nlohmann::json* entry = evaluation_entry(per_rank)) {
    evaluation.accuracy = (*entry)["accuracy"].get<double>();
    evaluation.mean_loss = (*entry)["mean_loss"].get<double>();
    evaluation.samples = (*entry)["samples"].get<std::int64_t>();
    evaluation.seconds = (*entry)["seconds"].get<double>();
  }
  return evaluation;
}

nlohmann::json assemble_results(const RunFacts& facts, const std::vector<nlohmann::json>& per_rank,
                                const nlohmann::json& env) {
  std::vector<EpochRecord> epochs = epoch_records(per_rank);
  for (std::size_t e = 0; e < epochs.size() && e < facts.live_epochs.size(); ++e) {
    if (facts.live_epochs[e].utilization) epochs[e].utilization = facts.live_epochs[e].utilization;
  }
  const Evaluation evaluation = final_evaluation(per_rank);

  std::uint64_t steps = 0;
  std::uint64_t samples = 0;
  std::uint64_t pushes = 0;
  std::uint32_t visits_min = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t visits_max = 0;
  std::uint32_t exact_epochs = std::numeric_limits<std::uint32_t>::max();
  nlohmann::json load = nlohmann::json::array();
  for (const auto& entry : per_rank) {
    if (!entry.contains("worker")) continue;
    const auto& worker = entry["worker"];
    steps += worker["steps"].get<std::uint64_t>();
    pushes += worker["pushes"].get<std::uint64_t>();
    for (const auto& tally : worker["epochs"]) samples += tally["samples"].get<std::uint64_t>();
    visits_min = std::min(visits_min, worker["visits"]["min"].get<std::uint32_t>());
    visits_max = std::max(visits_max, worker["visits"]["max"].get<std::uint32_t>());
    exact_epochs = std::min(exact_epochs, worker["visits"]["exact_epochs"].get<std::uint32_t>());
    nlohmann::json timing = worker["load"];
    timing["worker"] = worker["index"];
    timing["rank"] = entry["rank"];
    load.push_back(std::move(timing));
  }
  if (load.empty()) visits_min = exact_epochs = 0;

  double training = 0.0;
  for (const auto& record : epochs) training += record.seconds;

  nlohmann::json epoch_list = nlohmann::json::array();
  for (const auto& record : epochs) epoch_list.push_back(epoch_json(record));

  return {{"format", kResultsFormat},
          {"config", options_to_json(facts.options)},
          {"env", env},
          {"model",
           {{"spec", facts.options.model_spec},
            {"parameters", facts.parameters},
            {"parameter_bytes", facts.parameters * sizeof(float)},
            {"flops_per_step", facts.flops_per_step}}},
          {"phases", phases_json(max_phases(per_rank))},
          {"per_rank", per_rank},
          {"train",
           {{"epochs", facts.options.epochs},
            {"steps", steps},
            {"samples", samples},
            {"samples_per_s", training > 0.0 ? static_cast<double>(samples) / training : 0.0},
            {"training_s", training},
            {"final_loss", epochs.empty() ? 0.0 : epochs.back().mean_loss},
            {"test_accuracy", evaluation.accuracy},
            {"test_loss", evaluation.mean_loss},
            {"test_samples", evaluation.samples},
            {"evaluation_s", evaluation.seconds},
            {"total_samples", facts.total_samples},
            {"pushes", pushes},
            {"visits", {{"min", visits_min}, {"max", visits_max}, {"exact_epochs", exact_epochs}}},
            {"parameter_checksum", facts.parameter_checksum}}},
          {"server", server_section(per_rank)},
          {"epochs", std::move(epoch_list)},
          {"load", std::move(load)}};
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
