// Proves that psbench's own code allocates no buffer per training step, and says what oneDNN allocates
// inside its primitives: on AVX2, oneDNN 2.6 runs the fully connected layers as gemm:jit, which packs its
// operands into a workspace it allocates and frees inside every call (AVX-512 and AMX pick brgemm, which
// does not). The probe (allocation_probe.hpp) tells the two apart by whether a primitive was executing.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "allocation_probe.hpp"
#include "nn/model.hpp"
#include "nn/onednn_info.hpp"

namespace psbench::nn {
namespace {

constexpr int kBatch = 8;
constexpr int kSteps = 3;

struct StepCounts {
  std::vector<allocation_probe::Counts> per_step;  ///< what each training step allocated
  allocation_probe::Counts evaluation;             ///< what one evaluation allocated
};

StepCounts count_steps(const std::string& spec, int threads) {
  Model model(spec, {1, 28, 28}, 10, kBatch, 1, threads);
  const std::vector<float> images(static_cast<std::size_t>(kBatch) * 784, 0.25F);
  const std::vector<std::int32_t> labels(kBatch, 3);
  (void)model.train_step(images.data(), labels.data());
  (void)model.evaluate(images.data(), labels.data(), kBatch);  // builds the evaluation network once
  StepCounts counts;
  for (int step = 0; step < kSteps; ++step) {
    allocation_probe::start();
    (void)model.train_step(images.data(), labels.data());
    counts.per_step.push_back(allocation_probe::stop());
  }
  allocation_probe::start();
  (void)model.evaluate(images.data(), labels.data(), kBatch);
  counts.evaluation = allocation_probe::stop();
  return counts;
}

void expect_no_caller_buffers(const std::string& spec, int threads) {
  const StepCounts counts = count_steps(spec, threads);
  const auto& first = counts.per_step.front();
  for (const auto& step : counts.per_step) {
    EXPECT_EQ(step.caller_buffers, 0) << spec << " with " << threads << " threads: psbench allocated buffers up to "
                                      << step.caller_largest << " bytes during a step";
    EXPECT_GT(step.executions, 0) << "the probe saw no primitive execute: it is not interposed";
    EXPECT_EQ(step.workspace_kept, 0) << spec << ": oneDNN kept memory it allocated while executing";
    EXPECT_EQ(step.workspace_allocations, first.workspace_allocations) << spec << ": the workspace changed";
    EXPECT_EQ(step.workspace_bytes, first.workspace_bytes) << spec << ": the workspace changed";
  }
  EXPECT_EQ(counts.evaluation.caller_buffers, 0) << spec << ": psbench allocated buffers during an evaluation";
  EXPECT_EQ(counts.evaluation.workspace_kept, 0) << spec << ": oneDNN kept memory during an evaluation";
  std::cout << spec << ", " << threads << " thread(s), ISA " << onednn_isa() << ": oneDNN's per-step workspace "
            << first.workspace_allocations << " allocation(s), " << first.workspace_bytes << " bytes in "
            << first.executions << " primitive calls\n";
}

TEST(StepAllocations, MlpAllocatesNoBufferPerStep) { expect_no_caller_buffers("mlp:512,256", 1); }

TEST(StepAllocations, CnnAllocatesNoBufferPerStep) { expect_no_caller_buffers("cnn", 1); }

TEST(StepAllocations, TwoThreadsAllocateNoBufferPerStep) { expect_no_caller_buffers("cnn", 2); }

TEST(StepAllocations, TheProbeSeesACallerBuffer) {
  allocation_probe::start();
  std::vector<float> buffer(1U << 16U);
  const auto counts = allocation_probe::stop();
  EXPECT_EQ(counts.caller_buffers, 1);
  EXPECT_EQ(counts.caller_largest, buffer.size() * sizeof(float));
  EXPECT_EQ(counts.workspace_allocations, 0);
}

// gemm:jit's packing buffers are the workspace the probe exists to tell apart; where oneDNN picks gemm:jit,
// the probe must see them, or it could not see a workspace at all.
TEST(StepAllocations, TheProbeSeesGemmJitWorkspace) {
  const std::string implementation = fully_connected_implementation(kBatch, 784, 512);
  if (implementation.find("gemm:jit") == std::string::npos) {
    GTEST_SKIP() << "oneDNN runs the fully connected layers as " << implementation << " here, not gemm:jit";
  }
  const StepCounts counts = count_steps("mlp:512,256", 1);
  EXPECT_GT(counts.per_step.front().workspace_allocations, 0);
  EXPECT_GT(counts.per_step.front().workspace_bytes, allocation_probe::kBufferBytes);
}

}  // namespace
}  // namespace psbench::nn
