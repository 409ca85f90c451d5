// The learners without servers (sync, bmuf, average) and 1-bit compression against values worked out by hand (in the
// comments), and perf's byte counts against train's and compress's own code.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "nn/network_plan.hpp"
#include "perf/collective_costs.hpp"
#include "perf/collective_forms.hpp"
#include "perf/model_shape.hpp"
#include "perf/predict.hpp"
#include "perf/run_points.hpp"
#include "perf/wire_bytes.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/gradient_columns.hpp"
#include "two_core_calibration.hpp"

namespace psbench::perf {
namespace {

constexpr double kBytes = 4.0 * 50890.0;  // 4P of mlp:64 on 28x28 inputs with 10 classes

// The 2-core calibration plus an allreduce of 0.1 ms + 1 ns per ring byte, the quantizer at 1 ns and the
// dequantizer at 0.5 ns per fp32 byte, and a messages round trip as the window's.
Calibration learner_calibration() {
  Calibration c = test_support::two_core_calibration();
  c.allreduce = LinearFit{1e-4, 1e-9, "push_pull.json", 0.0, 2, {}};
  c.quantize = LinearFit{0.0, 1e-9, "server_update.json", 0.0, 2, {}};
  c.dequantize = LinearFit{0.0, 0.5e-9, "server_update.json", 0.0, 2, {}};
  c.exchange_messages = c.exchange_shared_window;
  return c;
}

Scenario scenario_of(Learner learner, const std::string& platform = "this") {
  Scenario s;
  s.model = "mlp:64";
  s.learner = learner;
  s.platform = parse_platform(platform, 2);
  return s;
}

// mlp:64's columns, CNTK's: 784 of 64 values (4 words each: 2 + ceil(64 / 32)), a bias of 64 (4 words), 64 of 10
// (3 words each) and a bias of 10 (3 words): 3,335 words, 13,340 bytes.
compress::ColumnLayout mlp64_columns() { return onebit_columns(model_shape("mlp:64", {}).onebit_matrices); }

TEST(WireBytes, ColumnsAgreeWithTrain) {
  for (const std::string spec : {"mlp:512,256", "mlp:64", "cnn"}) {
    const nn::NetworkPlan plan = nn::plan_network(spec, {1, 28, 28}, 10);
    const compress::ColumnLayout expected = train::gradient_columns(plan);
    const compress::ColumnLayout columns = onebit_columns(model_shape(spec, {}).onebit_matrices);
    ASSERT_EQ(columns.columns(), expected.columns()) << spec;
    for (std::size_t i = 0; i < columns.columns(); ++i) {
      ASSERT_EQ(columns.column(i).size, expected.column(i).size);
      ASSERT_EQ(columns.column(i).begin, expected.column(i).begin);
      ASSERT_EQ(columns.column(i).stride, expected.column(i).stride);
    }
  }
}

TEST(WireBytes, OneBitPushOfMlp512x256IsCntksClosedForm) {
  // CNTK packs a column of n values in 8 + 4 ceil(n / 32) bytes. mlp:512,256 on 784 inputs: 784 columns of 512
  // (72 bytes), a bias of 512 (72), 512 columns of 256 (40), a bias of 256 (40), 256 columns of 10 (12), a bias of
  // 10 (12): 56,448 + 72 + 20,480 + 40 + 3,072 + 12 = 80,124 bytes.
  const compress::ColumnLayout columns = onebit_columns(model_shape("mlp:512,256", {}).onebit_matrices);
  EXPECT_DOUBLE_EQ(onebit_push_bytes(columns, 1), 80124.0);
  // Two shards cut the first layer at value 267,909: row 341, column 565. Each of its 784 columns splits into 342 or
  // 341 rows (13 words either way: 2 + 11) and 170 or 171 (8 words): 784 x 21 words for its 784 x 18 uncut, 9,408
  // bytes more.
  EXPECT_DOUBLE_EQ(onebit_push_bytes(columns, 2), 89532.0);
}

TEST(WireBytes, OneBitPushPacksEachShardsColumns) {
  EXPECT_DOUBLE_EQ(onebit_push_bytes(mlp64_columns(), 1), 13340.0);
  // Two shards cut the first layer at value 25,445, row 32 column 357: every one of its 784 columns is split. Before
  // the cut, columns 0-356 hold rows 0-32 (33 values, 4 words) and columns 357-783 rows 0-31 (32 values, 3 words);
  // after it, 31 values (3 words) and 32 (3 words): 1,428 + 1,281 + 1,071 + 1,281 = 5,061 words for the layer's
  // 3,136 uncut, plus 4 + 192 + 3 for the rest: 5,260 words.
  EXPECT_DOUBLE_EQ(onebit_push_bytes(mlp64_columns(), 2), 4.0 * 5260.0);
}

TEST(WireBytes, OneBitSyncSendsOthersStripesThenItsSum) {
  // W = 2: 50,890 values; stripe 0 is the first 398 columns of 64 (25,472 values, the first past 25,445), the rest
  // stripe 1: 3,335 - own + own words either way.
  EXPECT_DOUBLE_EQ(onebit_sync_bytes(mlp64_columns(), 2), 13340.0);
  EXPECT_EQ(onebit_largest_stripe_values(mlp64_columns(), 2), 398U * 64U);
  // W = 4: stripes end at columns 199, 398 and 597: 796, 796, 796 words, and 187 x 4 + 4 + 192 + 3 = 947; the
  // busiest sends 3,335 + 2 x 947.
  EXPECT_DOUBLE_EQ(onebit_sync_bytes(mlp64_columns(), 4), 4.0 * 5229.0);
}

TEST(CollectiveForms, LockstepStepsAndSynchronisations) {
  CollectiveCosts c;
  c.base.workers = 4;
  c.base.cores_per_node = 8;
  c.base.ranks_per_node = 4;
  c.base.compute_s = 0.010;
  c.base.steps_per_worker = 100;
  c.base.read_bytes = 1e8;
  c.base.disk_sequential_Bps = 1e9;
  c.base.disk_parallel_Bps = 1e9;
  c.base.training_samples = 25600;
  c.update_s = 0.001;
  c.syncs = 3;
  c.transfer_s = 0.002;
  c.block_update_s = 0.002;
  EXPECT_DOUBLE_EQ(collective_compute_s(c, true), 1.112);  // 100 x (10 + 1) ms + 3 x (2 + 2) ms
  const Prediction p = predict_collective(c, Kind::kMva, IoMode::kSequential);
  EXPECT_DOUBLE_EQ(p.compute_s, 1.112);
  EXPECT_DOUBLE_EQ(p.init_io_s, 0.4);  // 4 readers in turn, 0.1 s each
  EXPECT_DOUBLE_EQ(p.updates_per_s, 400 / 1.112);
  EXPECT_EQ(p.servers, 0);
  EXPECT_DOUBLE_EQ(p.server_utilization, 0.0);
  EXPECT_FALSE(p.knee_workers.has_value());
  c.base.ranks_per_node = 16;  // 16 workers on a node's 8 cores: each step's t_fb twice as long, but not for ideal
  EXPECT_DOUBLE_EQ(collective_compute_s(c, true), 2.112);
  EXPECT_DOUBLE_EQ(predict_collective(c, Kind::kIdeal, IoMode::kSequential).compute_s, 1.112);
}

// W = 2 on 2 cores: 30,000 samples each, 469 steps of 64; t_fb 10 ms, the update of 4P 2 ms; the ring moves 4P each
// way per rank, 0.1 ms + 203,560 ns.
TEST(CollectiveCosts, SyncAllreducesTheGradientEveryStep) {
  const CollectiveCosts c = collective_costs(learner_calibration(), scenario_of(Learner::kSync), 2);
  EXPECT_DOUBLE_EQ(c.syncs, 469.0);
  EXPECT_DOUBLE_EQ(c.bytes_per_sync, kBytes);
  EXPECT_DOUBLE_EQ(c.transfer_s, 1e-4 + kBytes * 1e-9);
  EXPECT_NEAR(collective_compute_s(c, true), 469 * (0.010 + 0.002 + 1e-4 + kBytes * 1e-9), 1e-12);
}

TEST(CollectiveCosts, SyncOneBitExchangesPackedStripes) {
  Scenario s = scenario_of(Learner::kSync);
  s.onebit = true;
  const CollectiveCosts c = collective_costs(learner_calibration(), s, 2);
  EXPECT_DOUBLE_EQ(c.bytes_per_sync, 13340.0);
  EXPECT_DOUBLE_EQ(c.transfer_s, 2 * 1e-4 + 13340e-9);  // two collectives' fixed costs
  // Quantize 4P, dequantize two copies of the 25,472-value stripe, quantize the stripe's sum, dequantize 4P.
  const double stripe = 4.0 * 25472.0;
  EXPECT_NEAR(c.codec_s, kBytes * 1e-9 + 2 * stripe * 0.5e-9 + stripe * 1e-9 + kBytes * 0.5e-9, 1e-15);
}

TEST(CollectiveCosts, BlocksSynchroniseOncePerBlock) {
  Scenario s = scenario_of(Learner::kBmuf);
  s.block_samples = 6400;
  const CollectiveCosts bmuf = collective_costs(learner_calibration(), s, 2);
  EXPECT_DOUBLE_EQ(bmuf.syncs, 5.0);             // ceil(30,000 / 6,400)
  EXPECT_DOUBLE_EQ(bmuf.block_update_s, 0.004);  // two updates of 4P
  EXPECT_NEAR(collective_compute_s(bmuf, true), 469 * 0.012 + 5 * (1e-4 + kBytes * 1e-9 + 0.004), 1e-12);
  s.learner = Learner::kAverage;
  const CollectiveCosts average = collective_costs(learner_calibration(), s, 2);
  EXPECT_DOUBLE_EQ(average.block_update_s, 0.002);
  EXPECT_DOUBLE_EQ(average.transfer_s, 1e-4 + kBytes * 1e-9 + 1e-4 + 8e-9);  // and the samples' count, 8 bytes
}

TEST(CollectiveCosts, OnARackTheRingCrossesTheLinks) {
  Scenario s = scenario_of(Learner::kSync, "rack:8:10");
  s.ranks_per_node = 1;
  const CollectiveCosts c = collective_costs(learner_calibration(), s, 4);
  const double latency = s.platform.latency_s + s.platform.hop_latency_s;
  // The allreduce's fixed cost, 2 x 3 ring steps' latency, 1.5 x 4P through a 1.25 GB/s link.
  EXPECT_DOUBLE_EQ(c.transfer_s, 1e-4 + 6 * latency + 1.5 * kBytes / 1.25e9);
}

TEST(StepCosts, AsyncOneBitPushesPackedAndDequantizes) {
  Scenario s = scenario_of(Learner::kAsync);
  s.onebit = true;
  const StepCosts c = step_costs(learner_calibration(), s, 1, 1);
  // The round trip's 1 ms transfer scaled to (13,340 + 4P) / (2 x 4P) of its bytes, plus quantizing 4P.
  EXPECT_NEAR(c.exchange_s, 1e-3 * 0.5 * (1.0 + 13340.0 / kBytes) + kBytes * 1e-9, 1e-15);
  EXPECT_NEAR(c.service_s, 0.002 + kBytes * 0.5e-9, 1e-15);  // the update and the dequantization
  Scenario rack = scenario_of(Learner::kAsync, "rack:8:10");
  rack.onebit = true;
  const StepCosts r = step_costs(learner_calibration(), rack, 1, 1);
  EXPECT_DOUBLE_EQ(r.link_transfers, 1.0 + 13340.0 / kBytes);  // 1 + K/N x packed / fp32, K = N = 1 chunk
}

TEST(Predict, LearnersWithoutServersRefuseSimAndMissingFits) {
  PredictRequest request;
  request.scenario = scenario_of(Learner::kSync);
  request.workers = {2};
  request.servers = {1};
  request.kinds = {Kind::kSim};
  EXPECT_THROW(predict(learner_calibration(), request), UserError);
  request.kinds = {Kind::kMva};
  EXPECT_EQ(predict(learner_calibration(), request).size(), 1U);
  EXPECT_THROW(predict(test_support::two_core_calibration(), request), UserError);  // no allreduce fit
  request.scenario.learner = Learner::kBmuf;
  EXPECT_THROW(predict(learner_calibration(), request), UserError);  // no block
}

// An uncontended async run with a server that served 100 updates in 0.2 s: a service point, unless it is 1-bit
// (its server also dequantized) or of a learner without servers.
results::ResultsFile served_run(const std::string& mode, const std::string& compress) {
  results::ResultsFile run;
  run.config.mode = mode;
  run.config.compress = compress;
  run.config.model = "mlp:64";
  run.model.parameter_bytes = 4 * 50890;
  run.env.cores = 8;
  run.env.workers = 1;
  run.env.servers = 1;
  results::RankEntry server;
  server.server = results::ServerEntry{};
  server.server->updates = 100;
  server.server->service_s = 0.2;
  run.per_rank.push_back(server);
  return run;
}

TEST(RunPoints, CalibrateTakesServiceOnlyFromFp32AsyncRuns) {
  RunPoints points;
  add_run(served_run("async", "none"), "async.json", points);
  ASSERT_EQ(points.service_s_vs_shard_bytes.size(), 1U);
  EXPECT_DOUBLE_EQ(points.service_s_vs_shard_bytes[0].y, 0.002);
  add_run(served_run("async", "onebit"), "onebit.json", points);
  add_run(served_run("sync", "none"), "sync.json", points);
  add_run(served_run("bmuf", "none"), "bmuf.json", points);
  EXPECT_EQ(points.service_s_vs_shard_bytes.size(), 1U);
  EXPECT_EQ(points.sources.size(), 2U);  // the 1-bit run still gives its reads
}

}  // namespace
}  // namespace psbench::perf
