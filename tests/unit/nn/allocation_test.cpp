// Counts the heap allocations made during training steps by interposing glibc's allocator entry points
// (this binary only; sanitizer builds, which interpose them too, leave it out).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <vector>

#include "nn/model.hpp"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {

/// Anything above this is a buffer, not oneDNN's per-call bookkeeping (argument maps of a few dozen bytes).
constexpr std::size_t kBufferBytes = 4096;

std::atomic<bool> g_counting{false};
std::atomic<long> g_buffers{0};
std::atomic<std::size_t> g_largest{0};

void note(std::size_t size) {
  if (!g_counting.load(std::memory_order_relaxed) || size <= kBufferBytes) return;
  g_buffers.fetch_add(1, std::memory_order_relaxed);
  std::size_t largest = g_largest.load(std::memory_order_relaxed);
  while (size > largest && !g_largest.compare_exchange_weak(largest, size)) {
  }
}

}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note(size);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  note(count * size);
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  note(size);
  return __libc_realloc(pointer, size);
}
int posix_memalign(void** pointer, std::size_t alignment, std::size_t size) {
  note(size);
  *pointer = __libc_memalign(alignment, size);
  return *pointer == nullptr ? 12 : 0;  // ENOMEM
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note(size);
  return __libc_memalign(alignment, size);
}
}

namespace psbench::nn {
namespace {

void expect_no_buffers_per_step(const std::string& spec, int threads) {
  constexpr int kBatch = 8;
  Model model(spec, {1, 28, 28}, 10, kBatch, 1, threads);
  const std::vector<float> images(static_cast<std::size_t>(kBatch) * 784, 0.25F);
  const std::vector<std::int32_t> labels(kBatch, 3);
  (void)model.train_step(images.data(), labels.data());
  (void)model.evaluate(images.data(), labels.data(), kBatch);  // builds the evaluation network once
  g_buffers = 0;
  g_largest = 0;
  g_counting = true;
  for (int step = 0; step < 3; ++step) (void)model.train_step(images.data(), labels.data());
  (void)model.evaluate(images.data(), labels.data(), kBatch);
  g_counting = false;
  EXPECT_EQ(g_buffers.load(), 0) << spec << " with " << threads << " threads allocated buffers up to "
                                 << g_largest.load() << " bytes during steps";
}

TEST(StepAllocations, MlpAllocatesNoBufferPerStep) { expect_no_buffers_per_step("mlp:512,256", 1); }

TEST(StepAllocations, CnnAllocatesNoBufferPerStep) { expect_no_buffers_per_step("cnn", 1); }

TEST(StepAllocations, TwoThreadsAllocateNoBufferPerStep) { expect_no_buffers_per_step("cnn", 2); }

TEST(StepAllocations, TheCounterSeesAnAllocation) {
  g_buffers = 0;
  g_counting = true;
  std::vector<float> buffer(1U << 16U);
  g_counting = false;
  EXPECT_EQ(g_buffers.load(), 1);
  EXPECT_EQ(buffer.size(), 1U << 16U);
}

}  // namespace
}  // namespace psbench::nn
