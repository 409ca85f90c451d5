#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>

#include "mpi/communicator.hpp"

namespace psbench::mpi {

/// An MPI-3 shared-memory window over the ranks of one node (MPI_Win_allocate_shared): every rank
/// contributes a segment of its own size, placed in memory near it, and addresses every segment directly.
/// Synchronisation is the caller's (atomics in the segments); the window only provides the memory. Every
/// segment starts on a page boundary (Open MPI's do not: it puts a header before them).
class SharedWindow {
 public:
  /// Collective over node (a communicator from split_by_node): allocates bytes here (0 is allowed).
  SharedWindow(const Communicator& node, std::size_t bytes);
  /// Collective: frees the window, except while an exception unwinds (the job is ending, and the other
  /// ranks may never join MPI_Win_free).
  ~SharedWindow();
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;

  /// Alignment of every segment's start.
  static constexpr std::size_t kAlignment = 4096;

  /// The segment of node rank r, in this process's address space: at least the bytes r asked for (MPI
  /// may round up), empty when r asked for none.
  [[nodiscard]] std::span<std::byte> segment(int node_rank) const;

 private:
  MPI_Win window_ = MPI_WIN_NULL;
};

/// Maps every page of range (part of another rank's segment) into this process's page tables, writable,
/// without changing a byte, so that the first pass over it does not take one page fault per 4 KiB: a
/// server's first update from a worker of 13 MB otherwise pays about 6,400 of them. Falls back to an atomic add
/// of zero to a byte of each page where the kernel (before Linux 5.14) lacks MADV_POPULATE_WRITE.
void map_in(std::span<std::byte> range);

}  // namespace psbench::mpi
