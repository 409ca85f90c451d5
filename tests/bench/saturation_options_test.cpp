#include "saturation_options.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.hpp"

namespace psbench::bench {
namespace {

SaturationOptions parse(std::vector<const char*> words) {
  words.insert(words.begin(), "bench_server_saturation");
  return parse_saturation_options(static_cast<int>(words.size()), const_cast<char**>(words.data()));
}

TEST(SaturationOptions, DefaultsAreTheStudysRuns) {
  const SaturationOptions options = parse({});
  EXPECT_EQ(options.servers, (std::vector<int>{1, 2}));
  EXPECT_EQ(options.parameters, (std::vector<std::size_t>{535818, 3274634}));
  EXPECT_EQ(options.think_ratios.size(), 2U);
  EXPECT_TRUE(options.think_us.empty());
  EXPECT_TRUE(options.shared) << "the shared window is the product's intra-node path";
  EXPECT_EQ(options.repetitions, 5) << "each point is the median of interleaved repetitions";
}

TEST(SaturationOptions, ListsAndValuesAreRead) {
  const SaturationOptions options = parse({"--servers", "1,2,4", "--think-us", "100,2000", "--max-clients", "8",
                                           "--path", "messages", "--repetitions", "5"});
  EXPECT_EQ(options.servers, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(options.think_us, (std::vector<double>{100.0, 2000.0}));
  EXPECT_EQ(options.max_clients, 8);
  EXPECT_FALSE(options.shared);
  EXPECT_EQ(options.repetitions, 5);
}

TEST(SaturationOptions, BadInputNamesTheFlag) {
  const auto message = [](std::vector<const char*> words) {
    try {
      (void)parse(std::move(words));
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"--servers", "0"}).find("--servers"), std::string::npos);
  EXPECT_NE(message({"--servers", "1.5"}).find("whole numbers"), std::string::npos);
  EXPECT_NE(message({"--seconds", "fast"}).find("--seconds"), std::string::npos);
  EXPECT_NE(message({"--repetitions", "0"}).find("--repetitions"), std::string::npos);
  EXPECT_NE(message({"--repetitions", "2.5"}).find("whole numbers"), std::string::npos);
  EXPECT_NE(message({"--path", "rdma"}).find("--path"), std::string::npos);
  EXPECT_NE(message({"--max-clients"}).find("needs a value"), std::string::npos);
  EXPECT_NE(message({"--bogus", "1"}).find("unknown flag '--bogus'"), std::string::npos);
}

TEST(SaturationOptions, TheJobMustHoldServersAndClients) {
  SaturationOptions options = parse({});
  fit_to_job(options, 18);
  EXPECT_EQ(options.max_clients, 16);
  SaturationOptions too_many = parse({"--max-clients", "17"});
  EXPECT_THROW(fit_to_job(too_many, 18), UserError);
  SaturationOptions no_clients = parse({});
  EXPECT_THROW(fit_to_job(no_clients, 2), UserError);
}

}  // namespace
}  // namespace psbench::bench
