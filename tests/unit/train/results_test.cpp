#include "train/results.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "train/rank_report.hpp"

namespace psbench::train {
namespace {

ps::ServerStats server_stats(std::uint64_t updates, std::uint64_t stale) {
  ps::ServerStats stats;
  stats.updates = updates;
  stats.service_seconds = 1.0;
  stats.idle_seconds = 3.0;
  stats.serve_seconds = 4.0;
  for (std::uint64_t i = 0; i < updates; ++i) stats.staleness.record(i % 2 == 0 ? 0 : stale);
  return stats;
}

WorkerReport worker_report(int index, std::uint64_t samples, double offset) {
  WorkerReport worker;
  worker.index = index;
  worker.samples = samples;
  worker.pushes = 20;
  worker.visits = {2, 2, 2};
  worker.epochs = {EpochTally{0, 5, samples, 10.0, 10.0 + offset, 20.0 + offset},
                   EpochTally{1, 5, samples, 5.0, 20.0 + offset, 30.0 + offset}};
  worker.load.bytes_read = 1000;
  worker.load.mode = "sequential+whole";
  return worker;
}

results::RankEntry on_host(results::RankEntry entry, const std::string& host) {
  entry.host = host;
  return entry;
}

std::vector<results::RankEntry> per_rank() {
  PhaseSeconds server_phases{};
  server_phases[static_cast<std::size_t>(Phase::kTotal)] = 40.0;
  PhaseSeconds worker_phases{};
  worker_phases[static_cast<std::size_t>(Phase::kCompute)] = 12.0;
  worker_phases[static_cast<std::size_t>(Phase::kTotal)] = 39.0;
  Evaluation evaluation{0.8, 0.5, 100, 1.0};
  auto evaluator = rank_entry(2, worker_phases, worker_report(0, 50, 0.0), std::nullopt, evaluation, 0.0);
  evaluator.evaluation->parameter_checksum = "00";
  return {on_host(rank_entry(0, server_phases, std::nullopt, ServerReport{0, 0, 10, server_stats(20, 1)}, std::nullopt,
                             0.0),
                  "a"),
          on_host(rank_entry(1, server_phases, std::nullopt, ServerReport{1, 10, 10, server_stats(20, 3)}, std::nullopt,
                             0.0),
                  "a"),
          on_host(evaluator, "b"),
          on_host(rank_entry(3, worker_phases, worker_report(1, 51, 1.0), std::nullopt, std::nullopt, 0.0), "b")};
}

// The results document as written: the typed file through its schema.
nlohmann::json assemble_json(const RunFacts& facts) {
  nlohmann::json document;
  to_json(document, assemble_results(facts, per_rank(), results::Environment{}));
  return document;
}

TEST(Results, HasEveryKeyDesignMdLists) {
  RunFacts facts;
  facts.options.model_spec = "mlp:32";
  facts.options.epochs = 2;
  const auto results = assemble_json(facts);
  for (const char* key : {"config", "env", "phases", "per_rank", "train", "server"}) {
    EXPECT_TRUE(results.contains(key)) << key;
  }
  for (const char* phase :
       {"init_io", "init_total", "compute", "push", "pull", "compress", "server_update", "server_idle", "total"}) {
    EXPECT_TRUE(results["phases"].contains(phase)) << phase;
  }
  for (const char* key : {"epochs", "steps", "samples_per_s", "final_loss", "test_accuracy"}) {
    EXPECT_TRUE(results["train"].contains(key)) << key;
  }
  for (const char* key : {"updates", "updates_per_s", "utilization", "staleness"}) {
    EXPECT_TRUE(results["server"].contains(key)) << key;
  }
  for (const char* key : {"mean", "max", "hist"}) EXPECT_TRUE(results["server"]["staleness"].contains(key)) << key;
  for (const auto& rank : results["per_rank"]) {
    EXPECT_TRUE(rank.contains("role"));
    EXPECT_TRUE(rank.contains("peak_rss_bytes"));
    EXPECT_GT(rank["peak_rss_bytes"].get<std::uint64_t>(), 0U);
  }
}

TEST(Results, ServersAreSummedAndStalenessMerged) {
  const auto results = assemble_json(RunFacts{});
  const auto& server = results["server"];
  EXPECT_EQ(server["updates"], 40);
  EXPECT_DOUBLE_EQ(server["updates_per_s"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(server["utilization"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(server["staleness"]["mean"].get<double>(), (10 * 1 + 10 * 3) / 40.0);
  EXPECT_EQ(server["staleness"]["max"], 3);
  EXPECT_EQ(server["staleness"]["hist"], (std::vector<std::uint64_t>{20, 10, 0, 10}));
  EXPECT_EQ(results["train"]["pushes"], 40);
}

TEST(Results, EpochsAndTrainingThroughputComeFromTheWorkers) {
  const auto results = assemble_json(RunFacts{});
  const auto& epochs = results["epochs"];
  ASSERT_EQ(epochs.size(), 2U);
  EXPECT_EQ(epochs[0]["samples"], 101);
  EXPECT_DOUBLE_EQ(epochs[0]["seconds"].get<double>(), 11.0);  // from 10.0 to the later worker's 21.0
  EXPECT_DOUBLE_EQ(epochs[1]["seconds"].get<double>(), 10.0);  // from 21.0 to 31.0
  EXPECT_DOUBLE_EQ(epochs[0]["mean_loss"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(results["train"]["final_loss"].get<double>(), 1.0);
  EXPECT_EQ(results["train"]["steps"], 20);
  EXPECT_EQ(results["train"]["samples"], 202);
  EXPECT_DOUBLE_EQ(results["train"]["samples_per_s"].get<double>(), 202.0 / 21.0);
  EXPECT_DOUBLE_EQ(results["train"]["test_accuracy"].get<double>(), 0.8);
  EXPECT_EQ(results["train"]["visits"]["exact_epochs"], 2);
  EXPECT_DOUBLE_EQ(results["phases"]["total"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(results["phases"]["compute"].get<double>(), 12.0);
  ASSERT_EQ(results["load"].size(), 2U);
  EXPECT_EQ(results["load"][1]["rank"], 3);
}

// --eval-every: the evaluating worker's evaluations during an epoch are not training time, the curve reaches
// the top level, and the time to the target is the first point at or above it.
TEST(Results, EvaluationsDuringTrainingAreNotTrainingTime) {
  PhaseSeconds phases{};
  WorkerReport worker = worker_report(0, 50, 0.0);
  worker.epochs[0].evaluation_s = 2.5;  // epoch 0 ran from 10 to 20 with 2.5 s of evaluations
  worker.curve = {results::CurvePoint{1.0, 2, 100, 0, 1.5, 0.60, 1.1},
                  results::CurvePoint{3.0, 4, 200, 0, 1.0, 0.84, 0.6},
                  results::CurvePoint{5.0, 6, 300, 1, 0.8, 0.86, 0.5}};
  auto evaluator = rank_entry(0, phases, worker, std::nullopt, Evaluation{0.86, 0.5, 100, 1.0}, 0.0);
  ASSERT_TRUE(evaluator.evaluation->curve.has_value());
  RunFacts facts;
  facts.options.eval_every = 2;
  facts.options.target_accuracy = 0.85;
  nlohmann::json document;
  to_json(document, assemble_results(facts, {evaluator}, results::Environment{}));
  EXPECT_DOUBLE_EQ(document["epochs"][0]["seconds"].get<double>(), 7.5);  // 20 - 10 - 2.5
  EXPECT_DOUBLE_EQ(document["train"]["training_s"].get<double>(), 17.5);  // 7.5 + 10
  EXPECT_DOUBLE_EQ(document["per_rank"][0]["worker"]["epochs"][0]["evaluation_s"].get<double>(), 2.5);
  ASSERT_EQ(document["curve"].size(), 3U);
  EXPECT_DOUBLE_EQ(document["curve"][1]["accuracy"].get<double>(), 0.84);
  EXPECT_DOUBLE_EQ(document["train"]["time_to_target_s"].get<double>(), 5.0);
  // Not reached, or no target: null.
  facts.options.target_accuracy = 0.9;
  to_json(document, assemble_results(facts, {evaluator}, results::Environment{}));
  EXPECT_TRUE(document["train"]["time_to_target_s"].is_null());
  EXPECT_FALSE(time_to_target(std::nullopt, 0.5).has_value());
  EXPECT_FALSE(time_to_target(std::vector<results::CurvePoint>{}, 0.5).has_value());
}

TEST(Results, ChecksumIsStableAndSensitiveToEveryBit) {
  const std::vector<float> a{1.0F, 2.0F, 3.0F};
  std::vector<float> b = a;
  EXPECT_EQ(checksum_of(a), checksum_of(b));
  EXPECT_EQ(checksum_of(a).size(), 16U);
  b[2] = std::nextafter(3.0F, 4.0F);
  EXPECT_NE(checksum_of(a), checksum_of(b));
}

}  // namespace
}  // namespace psbench::train
