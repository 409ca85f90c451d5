// --platform parsing: the rack's link rates, latency and the servers' own rate, and its errors.
#include "perf/platform_spec.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

TEST(PlatformSpec, RackGivesEveryNodeOneRateByDefault) {
  const PlatformSpec spec = parse_platform("rack:5:1", 2);
  EXPECT_EQ(spec.kind, PlatformKind::kRack);
  EXPECT_EQ(spec.nodes, 5);
  EXPECT_DOUBLE_EQ(spec.link_Bps, 1.25e8);
  EXPECT_DOUBLE_EQ(spec.server_link_Bps, 1.25e8);
  EXPECT_DOUBLE_EQ(spec.latency_s, 50e-6);
  EXPECT_EQ(spec.cores_per_node, 2);
}

TEST(PlatformSpec, RackTakesALatencyAndAServerRate) {
  const PlatformSpec with_latency = parse_platform("rack:7:1:20:server=10", 2);
  EXPECT_EQ(with_latency.nodes, 7);
  EXPECT_DOUBLE_EQ(with_latency.link_Bps, 1.25e8);
  EXPECT_DOUBLE_EQ(with_latency.server_link_Bps, 1.25e9);
  EXPECT_DOUBLE_EQ(with_latency.latency_s, 20e-6);
  const PlatformSpec without = parse_platform("rack:7:1:server=2.5", 2);
  EXPECT_DOUBLE_EQ(without.server_link_Bps, 2.5e9 / 8.0);
  EXPECT_DOUBLE_EQ(without.latency_s, 50e-6);
}

TEST(PlatformSpec, MalformedRacksAreUserErrors) {
  for (const char* bad : {"rack:5", "rack:5:1:20:30", "rack:5:1:server=", "rack:5:1:server=0", "rack:5:1:server=x",
                          "rack:5:1:server=10:20", "rack:0:1", "rack:2.5:1", "rack:5:-1", "rack:5:1:fast"}) {
    EXPECT_THROW(parse_platform(bad, 2), UserError) << bad;
  }
}

}  // namespace
}  // namespace psbench::perf
