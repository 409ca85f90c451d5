// An async worker's step allocates no buffer, with and without --pipeline: the model's step (with the
// exchange's listener), the push and pull (pipelined: the completion of the previous step's, the copy into the
// send buffer and the start of this one's), counted by the allocation probe (tests/unit/nn). Rank 0 serves;
// the other ranks are workers. Over messages and over the shared window, with the model computing its gradient
// in the window (as run_setup.cpp places it) and in a vector of its own; and over messages with --compress onebit
// (the quantization into the client's packed buffer, with and without error feedback).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "allocation_probe.hpp"
#include "common/phase_timer.hpp"
#include "compress/column_layout.hpp"
#include "mpi/communicator.hpp"
#include "nn/model.hpp"
#include "ps/server.hpp"
#include "ps/shard_columns.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/rma_link.hpp"
#include "train/exchange/gradient_exchange.hpp"
#include "train/gradient_columns.hpp"

namespace psbench::train {
namespace {

constexpr int kBatch = 8;
constexpr int kWarmSteps = 3;
constexpr int kCountedSteps = 3;
const std::string kSpec = "mlp:64,32";
constexpr nn::InputShape kInput{1, 28, 28};

struct Case {
  bool pipeline = false;
  bool shared = false;               // the shared window (else messages only)
  bool gradients_in_window = false;  // the model computes its gradient in the window
  const char* name = "";
  bool onebit = false;          // --compress onebit
  bool error_feedback = false;  // with onebit: keep a residual
  bool rma = false;             // every pair by RMA (else by the window where shared, messages otherwise)
};

class AsyncAllocations : public ::testing::TestWithParam<Case> {};

TEST_P(AsyncAllocations, StepAllocatesNoBuffer) {
  const Case& c = GetParam();
  const auto world = mpi::Communicator::world();
  const auto topology = ps::Topology::async(world.size(), world.rank(), 1);
  const std::size_t parameters = nn::parameter_count_for(kSpec, kInput, 10);
  const ps::ShardLayout layout(parameters, 1);
  const compress::ColumnLayout columns = gradient_columns(nn::plan_network(kSpec, kInput, 10));
  const compress::ColumnLayout cut = ps::cut_at_shards(columns, layout);
  const std::size_t packed_words = c.onebit ? cut.words() : 0;
  std::unique_ptr<ps::NodeLink> link;
  if (c.shared) link = std::make_unique<ps::NodeLink>(world, world.split_by_node(), topology, parameters, packed_words);
  std::unique_ptr<ps::RmaLink> rma;
  if (c.rma) {
    rma = std::make_unique<ps::RmaLink>(world, world.split_by_node(), topology, layout, ps::Transport::kRma,
                                        ps::Transport::kRma, packed_words);
  }
  if (topology.is_server()) {
    const std::vector<float> initial(parameters, 0.01F);
    ps::Server server(world, topology, layout, initial, {0.01F, 0.0F}, ps::Links(link.get(), rma.get()));
    if (c.onebit) server.take_compressed_pushes(ps::shard_columns(cut, layout, 0), 0);
    const ps::ServerStats stats = server.serve();
    EXPECT_EQ(stats.updates, static_cast<std::uint64_t>(topology.workers() * (kWarmSteps + kCountedSteps)));
    server.send_final_shard(topology.worker_rank(0));
    return;
  }
  const std::span<float> storage = c.gradients_in_window && link ? link->gradients() : std::span<float>();
  nn::Model model(kSpec, kInput, 10, kBatch, 1, 1, storage);
  const std::unique_ptr<GradientExchange> exchange =
      make_async_exchange(world, topology, layout, ps::Links(link.get(), rma.get()), model.parameters(), c.pipeline,
                          {c.onebit ? &columns : nullptr, c.error_feedback});
  const std::vector<float> images(static_cast<std::size_t>(kBatch) * 784, 0.25F);
  const std::vector<std::int32_t> labels(kBatch, 3);
  PhaseTimer timer;
  const auto step = [&](int index) {
    StepInfo info;
    info.step = static_cast<std::size_t>(index);
    info.samples = kBatch;
    info.last_of_epoch = index + 1 == kWarmSteps + kCountedSteps;
    info.loss = model.train_step(images.data(), labels.data(), exchange->overlap(model.gradients(), true, timer));
    exchange->exchange(model.gradients(), model.parameters(), info, timer);
  };
  for (int s = 0; s < kWarmSteps; ++s) step(s);
  for (int s = 0; s < kCountedSteps; ++s) {
    allocation_probe::start();
    step(kWarmSteps + s);
    const allocation_probe::Counts counts = allocation_probe::stop();
    EXPECT_EQ(counts.caller_buffers, 0) << "step " << s << " allocated buffers up to " << counts.caller_largest
                                        << " bytes outside oneDNN's primitives";
    EXPECT_GT(counts.executions, 0) << "the probe saw no primitive execute: it is not interposed";
  }
  exchange->finish();
  EXPECT_FALSE(exchange->stopped());
  const ExchangeTotals totals = exchange->totals();
  EXPECT_GT(totals.wall_s, 0.0);
  EXPECT_LE(totals.wait_s, totals.wall_s);
}

INSTANTIATE_TEST_SUITE_P(Paths, AsyncAllocations,
                         ::testing::Values(Case{false, false, false, "Messages"},
                                           Case{true, false, false, "MessagesPipelined"},
                                           Case{false, true, true, "SharedMemory"},
                                           Case{true, true, true, "SharedMemoryPipelined"},
                                           Case{true, true, false, "SharedMemoryPipelinedOwnGradients"},
                                           Case{false, false, false, "OneBit", true, true},
                                           Case{false, false, false, "OneBitWithoutErrorFeedback", true, false},
                                           Case{false, true, true, "OneBitSharedMemory", true, true},
                                           Case{true, true, true, "OneBitSharedMemoryPipelined", true, true},
                                           Case{false, false, false, "Rma", false, false, true},
                                           Case{true, false, false, "RmaPipelined", false, false, true},
                                           Case{true, false, false, "OneBitRmaPipelined", true, true, true}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace psbench::train
