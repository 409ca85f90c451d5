// The shared-window path's own guarantees, on one node of 3 ranks (server rank 0, workers 1 and 2), with
// waits that sleep in the kernel (spin budget 0, as where ranks outnumber cores): the server writes each
// reply into the pushing worker's parameter area and never waits for that worker to look at it; a server
// asleep on its doorbell still names a silent worker, and a worker asleep on its reply a silent server.
#include <gtest/gtest.h>

#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "mpi/backoff_wait.hpp"
#include "ps/protocol_error.hpp"
#include "ps/server.hpp"
#include "ps/stall_watch.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/worker_client.hpp"

namespace psbench::ps {
namespace {

constexpr std::size_t kParameters = 2 * kChunkValues + 5;  // three chunks per reply
constexpr float kRate = 0.5F;                              // powers of two keep every value exact
constexpr int kSteps = 30;

std::vector<float> initial_parameters() {
  std::vector<float> values(kParameters);
  for (std::size_t i = 0; i < kParameters; ++i) values[i] = 1000.0F + static_cast<float>(i % 1024);
  return values;
}

// Checks that values hold the shard at version v: initial - rate * v at every index.
void expect_version(std::span<const float> values, std::uint64_t version, const char* what) {
  const auto initial = initial_parameters();
  for (std::size_t i = 0; i < kParameters; ++i) {
    ASSERT_EQ(values[i], initial[i] - kRate * static_cast<float>(version)) << what << ", index " << i;
  }
}

class SharedWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    mpi::set_spin_budget(std::chrono::microseconds(0));
    ASSERT_EQ(world_.size(), 3) << "this test is written for 3 ranks";
    link_ = std::make_unique<NodeLink>(world_, world_.split_by_node(), topology_, kParameters);
  }

  // Worker 0 (rank 1) pushes by hand, through its mailbox and the server's doorbell.
  void push_by_hand(PushKind kind, std::uint64_t sequence) const {
    Mailbox* mailbox = link_->mailbox(0);
    PushHeader header;
    header.kind = kind;
    header.samples = 8;
    mailbox->header = header;
    mailbox->pushed.store(sequence, std::memory_order_release);
    mpi::publish_increment(link_->doorbell(0)->pushes);
  }

  mpi::Communicator world_ = mpi::Communicator::world();
  Topology topology_ = Topology::async(world_.size(), world_.rank(), 1);
  ShardLayout layout_{kParameters, 1};
  std::unique_ptr<NodeLink> link_;
};

// Worker 0 pushes once and then does not look at its reply until worker 1 has made all its exchanges: the
// server must serve worker 1 meanwhile (it used to wait for worker 0 to copy its reply out), and each
// reply, in worker 1's area and in worker 0's, holds the server's shard at the reply's version.
TEST_F(SharedWindow, ServerNeverWaitsForAWorkerThatDoesNotLookAtItsReply) {
  const mpi::Communicator workers = world_.split(world_.rank() == 0 ? 0 : 1, world_.rank());
  if (world_.rank() == 0) {
    Server server(world_, topology_, layout_, initial_parameters(), SgdConfig{kRate, 0.0F}, link_.get(), std::nullopt,
                  ProtocolSettings{-1, kDefaultStallTimeoutSeconds, mpi::spin_budget()});
    const ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, static_cast<std::uint64_t>(1 + kSteps));
    expect_version(server.shard(), stats.updates, "the final shard");
  } else if (world_.rank() == 1) {
    WorkerClient client(world_, topology_, layout_, link_.get(), false,
                        ProtocolSettings{-1, kDefaultStallTimeoutSeconds, mpi::spin_budget()});
    std::fill(link_->gradients().begin(), link_->gradients().end(), 1.0F);
    push_by_hand(PushKind::kGradient, 1);
    workers.barrier();  // worker 1 exchanges kSteps times while this worker looks at nothing
    EXPECT_EQ(link_->mailbox(0)->chunks_ready.value.load(), static_cast<std::uint64_t>(chunk_count(kParameters)));
    const std::uint64_t version = link_->mailbox(0)->version;
    EXPECT_GE(version, 1U);
    expect_version(link_->parameters(), version, "worker 0's reply");
    push_by_hand(PushKind::kDone, 2);
  } else {
    WorkerClient client(world_, topology_, layout_, link_.get(), false,
                        ProtocolSettings{-1, kDefaultStallTimeoutSeconds, mpi::spin_budget()});
    const std::span<float> parameters = client.reply_parameters();
    ASSERT_EQ(parameters.data(), link_->parameters().data()) << "the client hands out its reply area";
    std::fill(link_->gradients().begin(), link_->gradients().end(), 1.0F);
    PhaseTimer timer;
    PushHeader header;
    header.samples = 8;
    std::uint64_t last = 0;
    for (int step = 0; step < kSteps; ++step) {
      client.push_pull(link_->gradients(), parameters, header, timer);
      const std::uint64_t version = client.versions()[0];
      ASSERT_GT(version, last);
      last = version;
      expect_version(parameters, version, "worker 1's reply, in place");
    }
    workers.barrier();
    client.finish();
  }
  world_.barrier();
}

// No worker pushes: the server, asleep on its doorbell, wakes at each slice and its watch names worker 0.
TEST_F(SharedWindow, ServerAsleepOnItsDoorbellNamesTheSilentWorker) {
  if (world_.rank() == 0) {
    Server server(world_, topology_, layout_, initial_parameters(), SgdConfig{kRate, 0.0F}, link_.get(), std::nullopt,
                  ProtocolSettings{-1, 1.0, mpi::spin_budget()});
    const auto start = std::chrono::steady_clock::now();
    try {
      server.serve();
      ADD_FAILURE() << "the server waited for the silent workers";
    } catch (const PeerStalled& error) {
      EXPECT_NE(std::string(error.what()).find("parameter server 0: worker 0 (rank 1) has sent nothing for"),
                std::string::npos)
          << error.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  } else {
    WorkerClient client(world_, topology_, layout_, link_.get(), false, ProtocolSettings{-1, 1.0, mpi::spin_budget()});
  }
  world_.barrier();
}

// The server never serves: worker 0, asleep on its reply, wakes at each slice and names the server.
TEST_F(SharedWindow, WorkerAsleepOnItsReplyNamesTheSilentServer) {
  if (world_.rank() == 0) {
    Server server(world_, topology_, layout_, initial_parameters(), SgdConfig{kRate, 0.0F}, link_.get(), std::nullopt,
                  ProtocolSettings{-1, 1.0, mpi::spin_budget()});
  } else {
    WorkerClient client(world_, topology_, layout_, link_.get(), false, ProtocolSettings{-1, 1.0, mpi::spin_budget()});
    if (world_.rank() == 1) {
      PhaseTimer timer;
      const auto start = std::chrono::steady_clock::now();
      try {
        client.push_pull(link_->gradients(), client.reply_parameters(), PushHeader{0, 0.0, 0, 8}, timer);
        ADD_FAILURE() << "the worker waited for the silent server";
      } catch (const PeerStalled& error) {
        EXPECT_NE(std::string(error.what()).find("worker rank 1: parameter server 0 (rank 0) has not answered a push"),
                  std::string::npos)
            << error.what();
      }
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    }
  }
  world_.barrier();
}

}  // namespace
}  // namespace psbench::ps
