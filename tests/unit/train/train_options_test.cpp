#include "train/train_options.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::train {
namespace {

TrainOptions good_options() {
  TrainOptions options;
  options.data_path = "data.h5";
  options.model_spec = "mlp:32";
  options.out_path = "out.json";
  return options;
}

void expect_error(const TrainOptions& options, int world_size, const std::string& fragment) {
  try {
    validate_options(options, world_size);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(TrainOptions, DefaultsAreValidForAsyncAtTwoRanks) { EXPECT_NO_THROW(validate_options(good_options(), 2)); }

TEST(TrainOptions, ServersMustBeBelowTheRankCount) {
  auto options = good_options();
  options.servers = 2;
  expect_error(options, 2, "--servers 2 must be below the number of ranks (2)");
  EXPECT_NO_THROW(validate_options(options, 3));
  options.servers = 0;
  expect_error(options, 3, "--servers must be at least 1");
}

TEST(TrainOptions, AsyncNeedsTwoRanks) { expect_error(good_options(), 1, "--mode async needs at least 2 ranks"); }

TEST(TrainOptions, LocalNeedsExactlyOneRank) {
  auto options = good_options();
  options.mode = Mode::kLocal;
  EXPECT_NO_THROW(validate_options(options, 1));
  expect_error(options, 2, "--mode local trains in one process");
}

TEST(TrainOptions, SyncRunsAtAnyRankCountAndIgnoresServers) {
  auto options = good_options();
  options.mode = Mode::kSync;
  options.servers = 5;
  EXPECT_NO_THROW(validate_options(options, 1));
  EXPECT_NO_THROW(validate_options(options, 4));
}

TEST(TrainOptions, BlockDefaultsAreCntksAndTheOvershootWarningItsRule) {
  auto options = good_options();
  options.mode = Mode::kBmuf;
  const TrainOptions bmuf = with_block_defaults(options, 4);
  EXPECT_EQ(bmuf.block_samples, kDefaultBmufBlockSamples);
  EXPECT_DOUBLE_EQ(*bmuf.block_momentum, 0.75);
  EXPECT_EQ(bmuf.block_lr, 1.0);
  EXPECT_EQ(bmuf.nesterov, true);
  EXPECT_NO_THROW(validate_options(bmuf, 4));
  EXPECT_FALSE(block_overshoot_warning(bmuf, 4));  // (1 - 0.75) x 1 x 4 = 1
  options.block_lr = 2.0;
  const auto warning = block_overshoot_warning(with_block_defaults(options, 4), 4);
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("= 2 >= 2 with 4 workers"), std::string::npos) << *warning;
  options = good_options();
  options.mode = Mode::kAverage;
  const TrainOptions average = with_block_defaults(options, 3);
  EXPECT_EQ(average.block_samples, kDefaultAverageBlockSamples);
  EXPECT_FALSE(average.block_momentum);
  EXPECT_EQ(with_block_defaults(good_options(), 3).block_samples, std::nullopt);  // async: untouched
}

TEST(TrainOptions, NonPositiveNumbersAreRejected) {
  auto options = good_options();
  options.batch = 0;
  expect_error(options, 2, "--batch must be positive");
  options = good_options();
  options.epochs = -1;
  expect_error(options, 2, "--epochs must be positive");
  options = good_options();
  options.learning_rate = 0.0;
  expect_error(options, 2, "--lr must be a positive number");
  options.learning_rate = -0.1;
  expect_error(options, 2, "--lr must be a positive number");
  options = good_options();
  options.threads = 0;
  expect_error(options, 2, "--threads must be positive");
  options = good_options();
  options.warmup_steps = -1;
  expect_error(options, 2, "--warmup-steps must be 0 or more");
  options = good_options();
  options.momentum = 1.0;
  expect_error(options, 2, "--momentum must lie in [0, 1)");
}

TEST(TrainOptions, PipelineIsForAsyncModeOnly) {
  auto options = good_options();
  options.pipeline = true;
  EXPECT_NO_THROW(validate_options(options, 2));
  options.mode = Mode::kSync;
  expect_error(options, 2, "--pipeline applies to --mode async only");
  expect_error(options, 2, "not --mode sync");
  options.mode = Mode::kLocal;
  expect_error(options, 1, "--pipeline applies to --mode async only");
  expect_error(options, 1, "not --mode local");
}

TEST(TrainOptions, JsonCarriesEveryFlag) {
  const auto json = options_to_json(good_options());
  for (const char* key : {"data", "model", "batch", "epochs", "lr", "momentum", "warmup_steps", "servers", "intra_node",
                          "mode", "io", "read", "cold_cache", "threads", "seed", "out", "trace", "quiet"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["mode"], "async");
  EXPECT_EQ(json["io"], "sequential");
  EXPECT_EQ(json["read"], "whole");
  EXPECT_EQ(json["intra_node"], "shared-memory");
  TrainOptions messages = good_options();
  messages.intra_node = IntraNode::kMessages;
  EXPECT_EQ(options_to_json(messages)["intra_node"], "messages");
}

}  // namespace
}  // namespace psbench::train
