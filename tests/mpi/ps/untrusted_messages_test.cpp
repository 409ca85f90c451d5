// The server trusts no message, and neither side waits forever. Rank 0 serves (or plays a rogue server),
// rank 1 plays a rogue worker (or runs a real WorkerClient), rank 2 stays idle. Rogue ranks send raw
// messages on their own duplicate of world, made at the same collective point as the real side's, so
// they reach the protocol's communicator; they drain what they are sent, so nothing is left for the next
// test's communicator to match.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "mpi/backoff_wait.hpp"
#include "ps/protocol_error.hpp"
#include "ps/server.hpp"
#include "ps/stall_watch.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

constexpr std::size_t kParameters = 64;  // one small chunk: every message is sent eagerly
constexpr std::uint32_t kBatch = 8;

PushHeader good_header() {
  PushHeader header;
  header.samples = kBatch;
  return header;
}

void send_header(const mpi::Communicator& ps, const PushHeader& header) {
  PSBENCH_MPI_CALL(MPI_Send(&header, sizeof header, MPI_BYTE, 0, kTagPushHeader, ps.native()));
}

// Runs the server on rank 0 with servers server ranks, rogue on rank 1 and nothing on the others; the
// server must refuse the rogue's message with a ProtocolError whose text holds expected.
void expect_refused(int servers, const std::function<void(const mpi::Communicator&)>& rogue,
                    const std::string& expected) {
  const auto world = mpi::Communicator::world();
  ASSERT_EQ(world.size(), 3) << "this test is written for 3 ranks";
  const Topology topology = Topology::async(world.size(), world.rank(), servers);
  if (world.rank() == 0) {
    const std::vector<float> initial(kParameters, 1.0F);
    Server server(world, topology, ShardLayout(kParameters, servers), initial, SgdConfig{0.5F, 0.0F});
    server.limit_samples(kBatch);
    try {
      server.serve();
      ADD_FAILURE() << "the server accepted the rogue message";
    } catch (const ProtocolError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
  } else {
    const mpi::Communicator ps = world.duplicate();
    if (world.rank() == 1) rogue(ps);
  }
  world.barrier();
}

constexpr const char* kFromRogue = "parameter server 0 received a malformed push from worker 0 (rank 1): ";

TEST(UntrustedMessages, HeaderOfTheWrongSize) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        const char bytes[7] = {};
        PSBENCH_MPI_CALL(MPI_Send(bytes, 7, MPI_BYTE, 0, kTagPushHeader, ps.native()));
      },
      std::string(kFromRogue) + "header of 7 bytes, expected 32");
}

TEST(UntrustedMessages, UnknownKind) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.kind = static_cast<PushKind>(7);
        send_header(ps, header);
      },
      std::string(kFromRogue) + "unknown kind 7");
}

TEST(UntrustedMessages, VersionAheadOfTheShard) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.version = 5;
        send_header(ps, header);
      },
      std::string(kFromRogue) + "gradient from version 5, but the shard is at version 0");
}

TEST(UntrustedMessages, EpochThatSkipsAhead) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.epoch = 3;
        send_header(ps, header);
      },
      std::string(kFromRogue) + "step of epoch 3, but the worker's steps belong to epoch 0");
}

TEST(UntrustedMessages, NoSamples) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.samples = 0;
        send_header(ps, header);
      },
      std::string(kFromRogue) + "step of 0 samples, expected 1 to 8");
}

TEST(UntrustedMessages, MoreSamplesThanTheBatch) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.samples = kBatch + 1;
        send_header(ps, header);
      },
      std::string(kFromRogue) + "step of 9 samples, expected 1 to 8");
}

TEST(UntrustedMessages, LastOfEpochFlagOutOfRange) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader header = good_header();
        header.last_of_epoch = 2;
        send_header(ps, header);
      },
      std::string(kFromRogue) + "last-of-epoch flag 2, expected 0 or 1");
}

TEST(UntrustedMessages, PushAfterDone) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        PushHeader done;
        done.kind = PushKind::kDone;
        send_header(ps, done);
        send_header(ps, good_header());
      },
      std::string(kFromRogue) + "a push after the worker said done");
}

TEST(UntrustedMessages, SenderIsAServer) {
  expect_refused(
      2, [](const mpi::Communicator& ps) { send_header(ps, good_header()); },
      "parameter server 0 received a malformed push from rank 1 (a server): the sender is not a worker");
}

TEST(UntrustedMessages, GradientChunkTooShort) {
  expect_refused(
      1,
      [](const mpi::Communicator& ps) {
        send_header(ps, good_header());
        PullHeader reply;
        PSBENCH_MPI_CALL(MPI_Recv(&reply, sizeof reply, MPI_BYTE, 0, kTagPullHeader, ps.native(), MPI_STATUS_IGNORE));
        const std::vector<float> gradient(kParameters - 1, 0.0F);
        PSBENCH_MPI_CALL(
            MPI_Send(gradient.data(), static_cast<int>(gradient.size()), MPI_FLOAT, 0, kTagPushData, ps.native()));
      },
      std::string(kFromRogue) + "gradient chunk 0 of 252 bytes, expected 256");
}

// A rogue server answers a real worker's push with a reply no newer than the push.
TEST(UntrustedMessages, WorkerRefusesAStaleReply) {
  const auto world = mpi::Communicator::world();
  ASSERT_EQ(world.size(), 3);
  const Topology topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(kParameters, 1);
  if (world.rank() == 1) {
    WorkerClient client(world, topology, layout);
    std::vector<float> gradients(kParameters, 1.0F);
    std::vector<float> weights(kParameters, 0.0F);
    PhaseTimer timer;
    try {
      client.push_pull(gradients, weights, good_header(), timer);
      ADD_FAILURE() << "the worker accepted a stale reply";
    } catch (const ProtocolError& error) {
      EXPECT_NE(std::string(error.what())
                    .find("worker rank 1 received a malformed reply from parameter server 0 "
                          "(rank 0): shard version 0 after pushing from version 0"),
                std::string::npos)
          << error.what();
    }
  } else {
    const mpi::Communicator ps = world.duplicate();
    if (world.rank() == 0) {
      PushHeader header;
      std::vector<float> values(kParameters);
      PSBENCH_MPI_CALL(MPI_Recv(&header, sizeof header, MPI_BYTE, 1, kTagPushHeader, ps.native(), MPI_STATUS_IGNORE));
      PSBENCH_MPI_CALL(MPI_Recv(values.data(), static_cast<int>(kParameters), MPI_FLOAT, 1, kTagPushData, ps.native(),
                                MPI_STATUS_IGNORE));
      const PullHeader stale{0};
      PSBENCH_MPI_CALL(MPI_Send(&stale, sizeof stale, MPI_BYTE, 1, kTagPullHeader, ps.native()));
      PSBENCH_MPI_CALL(MPI_Send(values.data(), static_cast<int>(kParameters), MPI_FLOAT, 1, kTagPullData, ps.native()));
    }
  }
  world.barrier();
}

// A short stall timeout for these tests (long enough for a loaded machine to deliver a push).
class ShortStallTimeout : public ::testing::Test {
 protected:
  ProtocolSettings settings_{-1, 2.0, mpi::spin_budget()};
};

// Worker 0 (rank 1) pushes once; worker 1 (rank 2) never does: the server names rank 2.
TEST_F(ShortStallTimeout, ServerNamesTheSilentWorker) {
  const auto world = mpi::Communicator::world();
  ASSERT_EQ(world.size(), 3);
  const Topology topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(kParameters, 1);
  if (world.rank() == 0) {
    const std::vector<float> initial(kParameters, 1.0F);
    Server server(world, topology, layout, initial, SgdConfig{0.5F, 0.0F}, {}, std::nullopt, settings_);
    const auto start = std::chrono::steady_clock::now();
    try {
      server.serve();
      ADD_FAILURE() << "the server waited for the silent worker";
    } catch (const PeerStalled& error) {
      EXPECT_NE(std::string(error.what()).find("parameter server 0: worker 1 (rank 2) has sent nothing for"),
                std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find("while the other workers pushed 1 times (--stall-timeout 2)"),
                std::string::npos)
          << error.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  } else if (world.rank() == 1) {
    WorkerClient client(world, topology, layout, {}, false, settings_);
    std::vector<float> gradients(kParameters, 1.0F);
    std::vector<float> weights(kParameters, 0.0F);
    PhaseTimer timer;
    client.push_pull(gradients, weights, good_header(), timer);
    EXPECT_EQ(client.versions()[0], 1U);
  } else {
    const mpi::Communicator ps = world.duplicate();
  }
  world.barrier();
}

// The server (rank 0) never answers: the worker names it, then the server drains the push.
TEST_F(ShortStallTimeout, WorkerNamesTheSilentServer) {
  const auto world = mpi::Communicator::world();
  ASSERT_EQ(world.size(), 3);
  const Topology topology = Topology::async(world.size(), world.rank(), 1);
  const ShardLayout layout(kParameters, 1);
  if (world.rank() == 1) {
    std::vector<float> gradients(kParameters, 1.0F);
    std::vector<float> weights(kParameters, 0.0F);
    PhaseTimer timer;
    try {
      WorkerClient client(world, topology, layout, {}, false, settings_);
      client.push_pull(gradients, weights, good_header(), timer);
      ADD_FAILURE() << "the worker waited for the silent server";
    } catch (const PeerStalled& error) {
      EXPECT_NE(std::string(error.what())
                    .find("worker rank 1: parameter server 0 (rank 0) has not answered a push "
                          "for"),
                std::string::npos)
          << error.what();
    }
    world.barrier();
  } else {
    const mpi::Communicator ps = world.duplicate();
    world.barrier();
    if (world.rank() == 0) {
      PushHeader header;
      std::vector<float> values(kParameters);
      PSBENCH_MPI_CALL(MPI_Recv(&header, sizeof header, MPI_BYTE, 1, kTagPushHeader, ps.native(), MPI_STATUS_IGNORE));
      PSBENCH_MPI_CALL(MPI_Recv(values.data(), static_cast<int>(kParameters), MPI_FLOAT, 1, kTagPushData, ps.native(),
                                MPI_STATUS_IGNORE));
    }
  }
  world.barrier();
}

}  // namespace
}  // namespace psbench::ps
