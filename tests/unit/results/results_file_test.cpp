#include "results/results_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "results/binary_codec.hpp"
#include "results/file_io.hpp"

namespace psbench::results {
namespace {

RankEntry worker_rank() {
  RankEntry entry;
  entry.rank = 1;
  entry.role = "worker";
  entry.host = "node-a";
  entry.cores = 16;
  entry.peak_rss_bytes = 123456789;
  entry.phases[Phase::kCompute] = 1.5;
  entry.phases[Phase::kTotal] = 2.25;
  entry.flops_per_step = 3.5e8;
  WorkerEntry worker;
  worker.index = 0;
  worker.samples = 600;
  worker.first_index = 0;
  worker.steps = 20;
  worker.pushes = 20;
  worker.visits = {2, 2, 2};
  worker.epochs = {WorkerEpoch{0, 10, 300, 20.5, 0.1, 1.1, std::nullopt, 0.25},
                   WorkerEpoch{1, 10, 300, 9.5, 1.1, 2.1, 0.75, std::nullopt}};
  worker.load = {4096, 0.5, 0.25, 0.008192, "sequential+whole", false};
  worker.exchange = ExchangeTiming{1.5, 0.5, 2.0 / 3.0, 3214908, 3214920};
  entry.worker = worker;
  entry.evaluation = EvaluationEntry{0.8,
                                     0.55,
                                     100,
                                     0.125,
                                     "00112233aabbccdd",
                                     std::vector<CurvePoint>{CurvePoint{0.5, 10, 200, 0, 1.25, 0.625, 1.0}}};
  return entry;
}

RankEntry server_rank() {
  RankEntry entry;
  entry.rank = 0;
  entry.role = "server";
  entry.host = "node-a";
  entry.cores = 16;
  entry.peak_rss_bytes = 1000;
  entry.phases[Phase::kServerUpdate] = 0.5;
  entry.server = ServerEntry{
      0, 0, 25450, 20, 0.5, 0.25, 1.5, 2.0, 0.25, Staleness{0.5, 1, {10, 10}}, ClockStats{3, 0.125, {0.125}, 1, 1}, 0};
  return entry;
}

ResultsFile sample_results() {
  ResultsFile file;
  file.config = {"f.h5",
                 "mlp:32",
                 20,
                 2,
                 0.01,
                 0.9,
                 0,
                 1,
                 "shared-memory",
                 "async",
                 "sequential",
                 "whole",
                 false,
                 1,
                 7,
                 "r.json",
                 "",
                 true,
                 "crash:rank=1,step=5",
                 "",
                 300.0,
                 "c.h5",
                 "epoch",
                 "",
                 262144,
                 false,
                 -1,
                 10,
                 0.5,
                 false,
                 1,
                 0.0,
                 4096,
                 0.75,
                 1.0,
                 true,
                 "onebit",
                 false};
  file.env.hosts = {"node-a"};
  file.env.ranks = 2;
  file.env.ranks_per_host = {{"node-a", 2}};
  file.env.cores = 16;
  file.env.cores_per_host = {{"node-a", 16}};
  file.env.servers = 1;
  file.env.workers = 1;
  file.env.threads_per_rank = 1;
  file.env.wait_spin_us = 10000;
  file.env.libraries = {{"psbench", "0.1.0"}, {"mpi", "Open MPI v4.1.4"}, {"hdf5", "1.10.8"}, {"onednn", "2.6.0"}};
  file.env.cpu = "AMD EPYC 7B13";
  file.env.onednn_isa = "avx2";
  file.model = {"mlp:32", 25450, 101800, 3.5e8};
  file.phases[Phase::kInitIo] = 0.5;
  file.per_rank = {server_rank(), worker_rank()};
  file.train.epochs = 2;
  file.train.steps = 20;
  file.train.final_loss = 0.95;
  file.train.visits = {2, 2, 2};
  file.train.parameter_checksum = "00112233aabbccdd";
  file.server = {20, 10.0, 0.25, Staleness{0.5, 1, {10, 10}}, ClockStats{3, 0.5, {0.5}, 2, 1}};
  file.epochs = {EpochSummary{0, 300, 10, 1.0, 300.0, 2.05, 0.25, std::nullopt},
                 EpochSummary{1, 300, 10, 1.0, 300.0, 0.95, std::nullopt, 0.75}};
  file.load = {LoadEntry{{4096, 0.5, 0.25, 0.008192, "sequential+whole", false}, 0, 1}};
  return file;
}

Json sample_json() { return Json::parse(results_text(sample_results())); }

// The message of the SchemaError (or UserError) that parsing text throws.
std::string parse_error(const Json& document) {
  try {
    parse_results(document.dump(), "r.json");
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

std::string write_error(const ResultsFile& file) {
  try {
    (void)results_text(file);
  } catch (const SchemaError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ResultsSchema, RoundTripKeepsEveryValue) {
  const ResultsFile file = sample_results();
  EXPECT_EQ(parse_results(results_text(file), "r.json"), file);
}

TEST(ResultsSchema, WritesFormatTwoAndTheDocumentedKeys) {
  const Json document = sample_json();
  EXPECT_EQ(document["format"], 2);
  EXPECT_EQ(document["env"]["cpu"], "AMD EPYC 7B13");
  EXPECT_EQ(document["env"]["onednn_isa"], "avx2");
  EXPECT_EQ(document["phases"]["init_io"], 0.5);
  EXPECT_EQ(document["per_rank"][1]["worker"]["epochs"][1]["test_accuracy"], 0.75);
  EXPECT_FALSE(document["per_rank"][1]["worker"]["epochs"][0].contains("test_accuracy"));
  EXPECT_FALSE(document["per_rank"][0].contains("worker"));
  EXPECT_TRUE(document["epochs"][0]["test_accuracy"].is_null());  // documented "fraction or null"
  EXPECT_TRUE(document["epochs"][1]["utilization"].is_null());
  EXPECT_EQ(document["load"][0]["rank"], 1);
  EXPECT_EQ(document["load"][0]["mode"], "sequential+whole");
}

TEST(ResultsSchema, ResumedFromRoundTripsAndIsAbsentWhenNotResumed) {
  ResultsFile file = sample_results();
  EXPECT_FALSE(sample_json().contains("resumed_from"));
  file.resumed_from = ResumedFrom{"c.h5", 1, 80, 2, {1, 2}, {19, 0}};
  const Json document = Json::parse(results_text(file));
  EXPECT_EQ(document["resumed_from"]["step"], 80);
  EXPECT_EQ(document["resumed_from"]["worker_steps"], Json::parse("[19, 0]"));
  EXPECT_EQ(document["config"]["inject_fault"], "crash:rank=1,step=5");
  EXPECT_EQ(document["config"]["checkpoint_every"], "epoch");
  EXPECT_EQ(parse_results(document.dump(), "r.json"), file);
}

TEST(ResultsSchema, FilesWithoutTheFaultAndCheckpointKeysStillRead) {
  Json document = sample_json();
  for (const char* key : {"inject_fault", "straggler", "stall_timeout", "checkpoint", "checkpoint_every", "resume"}) {
    document["config"].erase(key);
  }
  const ResultsFile file = parse_results(document.dump(), "r.json");
  EXPECT_FALSE(file.config.inject_fault.has_value());
  EXPECT_FALSE(file.config.stall_timeout.has_value());
  EXPECT_FALSE(file.resumed_from.has_value());
}

TEST(ResultsSchema, FilesWithoutTheBlockAndBytesKeysStillRead) {
  Json document = sample_json();
  for (const char* key : {"block_samples", "block_momentum", "block_lr", "nesterov"}) document["config"].erase(key);
  document["per_rank"][1]["worker"]["exchange"].erase("bytes_sent");
  document["per_rank"][1]["worker"]["exchange"].erase("bytes_received");
  const ResultsFile file = parse_results(document.dump(), "r.json");
  EXPECT_FALSE(file.config.block_samples.has_value());
  EXPECT_FALSE(file.config.nesterov.has_value());
  ASSERT_TRUE(file.per_rank[1].worker->exchange.has_value());
  EXPECT_FALSE(file.per_rank[1].worker->exchange->bytes_sent.has_value());
  EXPECT_EQ(file.per_rank[1].worker->exchange->wall_s, 1.5);
}

TEST(ResultsSchema, FilesWithoutTheCompressionKeysStillRead) {
  ResultsFile written = sample_results();
  written.phases[Phase::kCompress] = 0.75;
  Json document = Json::parse(results_text(written));
  EXPECT_EQ(document["phases"]["compress"], 0.75);
  EXPECT_EQ(document["config"]["compress"], "onebit");
  EXPECT_EQ(document["config"]["error_feedback"], false);
  EXPECT_EQ(parse_results(document.dump(), "r.json"), written);
  document["phases"].erase("compress");
  document["config"].erase("compress");
  document["config"].erase("error_feedback");
  const ResultsFile file = parse_results(document.dump(), "r.json");
  EXPECT_EQ(file.phases[Phase::kCompress], 0.0);
  EXPECT_FALSE(file.config.compress.has_value());
  EXPECT_FALSE(file.config.error_feedback.has_value());
}

TEST(ResultsSchema, ExtraKeysAreIgnored) {
  Json document = sample_json();
  document["comment"] = "added by a script";
  document["train"]["extra"] = 1;
  EXPECT_EQ(parse_results(document.dump(), "r.json"), sample_results());
}

TEST(ResultsSchema, MissingKeyNamesFileAndPath) {
  Json document = sample_json();
  document["per_rank"][1]["worker"]["epochs"][0].erase("loss_sum");
  EXPECT_EQ(parse_error(document), "r.json: key 'per_rank[1].worker.epochs[0].loss_sum' is missing");
}

TEST(ResultsSchema, NullWhereANumberBelongsIsAnError) {
  Json document = sample_json();
  document["train"]["final_loss"] = nullptr;
  EXPECT_EQ(parse_error(document), "r.json: key 'train.final_loss' must be a number, found null");
}

TEST(ResultsSchema, WrongTypesNameTheKey) {
  Json document = sample_json();
  document["env"]["ranks_per_host"]["node-a"] = "two";
  EXPECT_EQ(parse_error(document), "r.json: key 'env.ranks_per_host.node-a' must be an integer, found a string");
  document = sample_json();
  document["train"]["steps"] = 2.5;
  EXPECT_EQ(parse_error(document), "r.json: key 'train.steps' must be an integer, found the number 2.5");
  document = sample_json();
  document["train"]["steps"] = -1;
  EXPECT_EQ(parse_error(document), "r.json: key 'train.steps' is -1, out of range");
  document = sample_json();
  document["per_rank"] = Json::object();
  EXPECT_EQ(parse_error(document), "r.json: key 'per_rank' must be an array, found an object");
  EXPECT_EQ(parse_error(Json::array()), "r.json: the document must be an object, found an array");
}

TEST(ResultsSchema, OtherFormatVersionsAreRefused) {
  Json document = sample_json();
  document["format"] = 1;
  EXPECT_EQ(parse_error(document), "r.json: key 'format' is 1, but this psbench reads results files of format 2 only");
  document["format"] = 3;
  EXPECT_EQ(parse_error(document), "r.json: key 'format' is 3, but this psbench reads results files of format 2 only");
  document.erase("format");
  EXPECT_EQ(parse_error(document), "r.json: key 'format' is missing");
}

TEST(ResultsSchema, NonFiniteNumbersAreNeverWritten) {
  ResultsFile file = sample_results();
  file.train.final_loss = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(write_error(file), "results file: key 'train.final_loss' is NaN: a non-finite number is never written");
  file = sample_results();
  file.per_rank[1].worker->epochs[1].loss_sum = std::numeric_limits<double>::infinity();
  EXPECT_EQ(write_error(file),
            "results file: key 'per_rank[1].worker.epochs[1].loss_sum' is +infinity: a "
            "non-finite number is never written");
  file = sample_results();
  file.epochs[0].utilization = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(write_error(file),
            "results file: key 'epochs[0].utilization' is -infinity: a non-finite number is "
            "never written");
}

TEST(ResultsSchema, RefusedFileIsNotWritten) {
  const auto path = std::filesystem::temp_directory_path() / "psbench_results_refused.json";
  std::filesystem::remove(path);
  ResultsFile file = sample_results();
  file.phases[Phase::kTotal] = std::numeric_limits<double>::quiet_NaN();
  try {
    write_results_file(path.string(), file);
    ADD_FAILURE() << "a NaN was written";
  } catch (const SchemaError& error) {
    EXPECT_EQ(std::string(error.what()), path.string() +
                                             ": key 'phases.total' is NaN: a non-finite number is never "
                                             "written");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ResultsSchema, FileRoundTripAndUnreadableFiles) {
  const auto path = std::filesystem::temp_directory_path() / "psbench_results_round_trip.json";
  write_results_file(path.string(), sample_results());
  EXPECT_EQ(read_results_file(path.string()), sample_results());
  std::filesystem::remove(path);
  try {
    (void)read_results_file(path.string());
    ADD_FAILURE() << "a missing file was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot read '" + path.string() + "': No such file or directory");
  }
  std::ofstream(path) << "{\"format\": 2,";
  try {
    (void)read_results_file(path.string());
    ADD_FAILURE() << "truncated JSON was read";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(path.string() + ": not valid JSON: parse error"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove(path);
}

TEST(RankEntryCodec, RoundTripKeepsEveryValue) {
  for (const RankEntry& entry : {worker_rank(), server_rank(), RankEntry{}}) {
    EXPECT_EQ(decode_rank_entry(encode_rank_entry(entry)), entry);
  }
}

TEST(RankEntryCodec, TruncatedOrOverlongBytesAreRefused) {
  const std::string bytes = encode_rank_entry(worker_rank());
  EXPECT_THROW((void)decode_rank_entry(std::string_view(bytes).substr(0, bytes.size() - 1)), SystemError);
  EXPECT_THROW((void)decode_rank_entry(bytes + "x"), SystemError);
  EXPECT_THROW((void)decode_rank_entry(""), SystemError);
}

}  // namespace
}  // namespace psbench::results
