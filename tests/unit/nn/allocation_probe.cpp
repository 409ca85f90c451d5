#include "allocation_probe.hpp"

#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* pointer);
}

namespace psbench::allocation_probe {
namespace {

constexpr std::size_t kTrackedSlots = 256;
constexpr std::size_t kArenaBytes = std::size_t{64} << 20U;
constexpr std::size_t kArenaAlignment = 64;

std::atomic<bool> g_counting{false};
std::atomic<int> g_executing{0};  // nesting depth of dnnl_primitive_execute (the calling thread's)
std::atomic<long> g_caller_buffers{0};
std::atomic<long> g_mpi_runtime_buffers{0};
std::atomic<std::size_t> g_caller_largest{0};
std::atomic<long> g_workspace_allocations{0};
std::atomic<std::size_t> g_workspace_bytes{0};
std::atomic<long> g_workspace_kept{0};
std::atomic<long> g_executions{0};
std::array<std::atomic<void*>, kTrackedSlots> g_live_workspace{};  // workspace not yet freed
std::atomic<long> g_live_count{0};

std::atomic<bool> g_arena_enabled{false};
alignas(kArenaAlignment) std::array<unsigned char, kArenaBytes> g_arena{};
std::atomic<std::size_t> g_arena_used{0};

bool in_arena(const void* pointer) {
  const auto* byte = static_cast<const unsigned char*>(pointer);
  return byte >= g_arena.data() && byte < g_arena.data() + g_arena.size();
}

void* arena_allocate(std::size_t size) {
  const std::size_t rounded = (size + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  const std::size_t offset = g_arena_used.fetch_add(rounded);
  if (offset + rounded > g_arena.size()) return nullptr;
  return g_arena.data() + offset;
}

void note_largest(std::size_t size) {
  std::size_t largest = g_caller_largest.load(std::memory_order_relaxed);
  while (size > largest && !g_caller_largest.compare_exchange_weak(largest, size)) {
  }
}

void track(void* pointer) {
  for (auto& slot : g_live_workspace) {
    void* expected = nullptr;
    if (slot.compare_exchange_strong(expected, pointer)) {
      g_live_count.fetch_add(1);
      return;
    }
  }
  g_workspace_kept.fetch_add(1);  // more live workspace than slots: count it as kept, never miss it
}

void untrack(void* pointer) {
  if (pointer == nullptr || g_live_count.load() == 0) return;
  for (auto& slot : g_live_workspace) {
    void* expected = pointer;
    if (slot.compare_exchange_strong(expected, nullptr)) {
      g_live_count.fetch_sub(1);
      return;
    }
  }
}

// Serves an allocation from the arena when it is workspace and the arena is on; nullptr otherwise.
void* workspace_from_arena(std::size_t size) {
  if (g_executing.load(std::memory_order_relaxed) == 0 || !g_arena_enabled.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  return arena_allocate(size);
}

// Whether CALLER, the code that called the allocator, lies in the MPI runtime (Open MPI's libraries and components,
// PMIx, hwloc, libevent; MPICH's library and UCX, its ch4 transport): it buffers messages that arrive before their
// receive is posted, as timing decides, and MPICH 4.0.2 builds a schedule in every MPI_Start of a persistent
// collective.
bool in_mpi_runtime(const void* caller) {
  Dl_info info{};
  if (caller == nullptr || dladdr(caller, &info) == 0 || info.dli_fname == nullptr) return false;
  for (const char* name : {"libmpi", "libopen-pal", "libopen-rte", "/openmpi/", "mca_", "libpmix", "libhwloc",
                           "libevent", "libucp", "libucs", "libuct"}) {
    if (std::strstr(info.dli_fname, name) != nullptr) return true;
  }
  return false;
}

void* noted(void* pointer, std::size_t size, const void* caller) {
  if (!g_counting.load(std::memory_order_relaxed) || size <= kBufferBytes || pointer == nullptr) return pointer;
  if (g_executing.load(std::memory_order_relaxed) > 0) {
    g_workspace_allocations.fetch_add(1, std::memory_order_relaxed);
    g_workspace_bytes.fetch_add(size, std::memory_order_relaxed);
    track(pointer);
  } else if (in_mpi_runtime(caller)) {
    g_mpi_runtime_buffers.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_caller_buffers.fetch_add(1, std::memory_order_relaxed);
    note_largest(size);
  }
  return pointer;
}

using ExecuteFunction = dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);

ExecuteFunction real_execute() {
  static const auto function = reinterpret_cast<ExecuteFunction>(dlsym(RTLD_NEXT, "dnnl_primitive_execute"));
  return function;
}

// Resolves the real execute before counting starts: dlsym may allocate on its first call.
const bool g_resolved = real_execute() != nullptr;

}  // namespace

void start() {
  g_caller_buffers = 0;
  g_mpi_runtime_buffers = 0;
  g_caller_largest = 0;
  g_workspace_allocations = 0;
  g_workspace_bytes = 0;
  g_workspace_kept = 0;
  g_executions = 0;
  g_counting = true;
}

Counts stop() {
  g_counting = false;
  return {g_caller_buffers.load(), g_caller_largest.load(), g_workspace_allocations.load(), g_workspace_bytes.load(),
          g_workspace_kept.load(), g_executions.load(),     g_mpi_runtime_buffers.load()};
}

void use_workspace_arena(bool enabled) { g_arena_enabled = enabled && g_resolved; }

}  // namespace psbench::allocation_probe

namespace probe = psbench::allocation_probe;

extern "C" {

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
                                     const dnnl_exec_arg_t* args) {
  probe::g_executing.fetch_add(1);
  const dnnl_status_t status = probe::real_execute()(primitive, stream, nargs, args);
  if (probe::g_executing.fetch_sub(1) == 1) {
    if (probe::g_counting.load()) {
      probe::g_executions.fetch_add(1);
      probe::g_workspace_kept.fetch_add(probe::g_live_count.exchange(0));
    }
    for (auto& slot : probe::g_live_workspace) slot.store(nullptr);
    probe::g_arena_used = 0;
  }
  return status;
}

void* malloc(std::size_t size) {
  const void* caller = __builtin_return_address(0);
  if (void* pointer = probe::workspace_from_arena(size)) return probe::noted(pointer, size, caller);
  return probe::noted(__libc_malloc(size), size, caller);
}

void* calloc(std::size_t count, std::size_t size) {
  const void* caller = __builtin_return_address(0);
  if (void* pointer = probe::workspace_from_arena(count * size)) {
    std::memset(pointer, 0, count * size);
    return probe::noted(pointer, count * size, caller);
  }
  return probe::noted(__libc_calloc(count, size), count * size, caller);
}

void* realloc(void* pointer, std::size_t size) {
  const void* caller = __builtin_return_address(0);
  probe::untrack(pointer);
  if (probe::in_arena(pointer)) {
    void* moved = probe::arena_allocate(size);
    if (moved != nullptr) std::memmove(moved, pointer, size);
    return probe::noted(moved, size, caller);
  }
  return probe::noted(__libc_realloc(pointer, size), size, caller);
}

namespace {
int aligned_allocation(void** pointer, std::size_t alignment, std::size_t size, const void* caller) {
  if (alignment <= probe::kArenaAlignment) {
    if (void* from_arena = probe::workspace_from_arena(size)) {
      *pointer = probe::noted(from_arena, size, caller);
      return 0;
    }
  }
  *pointer = probe::noted(__libc_memalign(alignment, size), size, caller);
  return *pointer == nullptr ? 12 : 0;  // ENOMEM
}
}  // namespace

int posix_memalign(void** pointer, std::size_t alignment, std::size_t size) {
  return aligned_allocation(pointer, alignment, size, __builtin_return_address(0));
}

void* aligned_alloc(std::size_t alignment, std::size_t size) {
  void* pointer = nullptr;
  return aligned_allocation(&pointer, alignment, size, __builtin_return_address(0)) == 0 ? pointer : nullptr;
}

void free(void* pointer) {
  probe::untrack(pointer);
  if (!probe::in_arena(pointer)) __libc_free(pointer);
}
}
