#include "ps/topology.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::ps {
namespace {

TEST(Topology, AsyncRanksBelowServersServeTheRestWork) {
  const auto server = Topology::async(5, 1, 2);
  EXPECT_TRUE(server.is_server());
  EXPECT_EQ(server.worker_index(), -1);
  const auto worker = Topology::async(5, 4, 2);
  EXPECT_FALSE(worker.is_server());
  EXPECT_EQ(worker.workers(), 3);
  EXPECT_EQ(worker.worker_index(), 2);
  EXPECT_EQ(worker.worker_rank(0), 2);
  EXPECT_EQ(worker.server_rank(1), 1);
}

TEST(Topology, AsyncRejectsTooFewRanksOrServers) {
  EXPECT_THROW((void)Topology::async(1, 0, 1), UserError);
  EXPECT_THROW((void)Topology::async(3, 0, 3), UserError);
  EXPECT_THROW((void)Topology::async(3, 0, 0), UserError);
  try {
    (void)Topology::async(4, 0, 4);
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("--servers 4"), std::string::npos);
  }
}

TEST(Topology, AllWorkersHasNoServers) {
  const auto sync = Topology::all_workers(4, 3);
  EXPECT_FALSE(sync.is_server());
  EXPECT_EQ(sync.workers(), 4);
  EXPECT_EQ(sync.worker_index(), 3);
}

}  // namespace
}  // namespace psbench::ps
