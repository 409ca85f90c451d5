#pragma once

// Counts heap allocations by interposing glibc's allocator entry points and oneDNN's dnnl_primitive_execute
// in the binary that links this object library (sanitizer builds, which interpose the allocator too, leave it
// out). An allocation made while a primitive executes, by oneDNN's code, is the library's per-call workspace:
// it is counted apart from the buffers the caller allocates between primitives, and so is one the MPI runtime's
// own code makes (found from the allocator's return address with dladdr).

#include <cstddef>

namespace psbench::allocation_probe {

/// Allocations above this are buffers, not bookkeeping (oneDNN's argument maps are a few dozen bytes).
constexpr std::size_t kBufferBytes = 4096;

/// What the probe saw between start() and stop().
struct Counts {
  long caller_buffers = 0;          ///< allocations above kBufferBytes made outside any primitive's execution
  std::size_t caller_largest = 0;   ///< the largest of those, in bytes
  long workspace_allocations = 0;   ///< allocations above kBufferBytes made while a primitive executed
  std::size_t workspace_bytes = 0;  ///< their bytes, added up
  long workspace_kept = 0;          ///< of those, how many were still allocated when the primitive returned
  long executions = 0;              ///< dnnl_primitive_execute calls
  long mpi_runtime_buffers = 0;     ///< allocations above kBufferBytes made by the MPI runtime's own code (messages
                                    ///< it buffers because they arrived before their receive), not the caller's
};

/// Starts counting from zero.
void start();

/// Stops counting and returns what was seen.
Counts stop();

/// Serves the allocations made while a primitive executes from a pre-touched arena instead of glibc, which
/// takes their cost out of a step (a benchmark compares both).
void use_workspace_arena(bool enabled);

}  // namespace psbench::allocation_probe
