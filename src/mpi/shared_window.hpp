#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mpi/communicator.hpp"

namespace psbench::mpi {

/// An MPI-3 shared-memory window over the ranks of one node (MPI_Win_allocate_shared): every rank
/// contributes a segment of its own size, placed in memory near it, and addresses every segment directly.
/// Synchronisation is the caller's (atomics in the segments); the window only provides the memory. Every
/// segment starts on a page boundary (Open MPI's do not: it puts a header before them), and a segment of
/// kHugeAlignment bytes or more on a 2 MiB boundary, advised to transparent huge pages: where the node's
/// /dev/shm allows them (tmpfs huge=advise or within_size), a server's pass over a worker's gradients and
/// parameters then takes 1 TLB entry per 2 MiB instead of 512 (docs/measured.md has the difference).
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
  /// Alignment of the start of a segment of at least this many bytes: one transparent huge page.
  static constexpr std::size_t kHugeAlignment = std::size_t{2} << 20;

  /// The segment of node rank r, in this process's address space: the bytes r asked for, empty when r
  /// asked for none.
  [[nodiscard]] std::span<std::byte> segment(int node_rank) const;

 private:
  // Where a rank's segment starts past MPI's base for it (its owner's choice), and its size.
  struct Placement {
    std::uint64_t skip = 0;
    std::uint64_t bytes = 0;
  };
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<Placement> placements_;  // per node rank
};

/// Maps every page of range (part of another rank's segment) into this process's page tables, writable,
/// without changing a byte, so that the first pass over it does not take one page fault per 4 KiB: a
/// server's first update from a worker of 13 MB otherwise pays about 6,400 of them. Falls back to an atomic add
/// of zero to a byte of each page where the kernel (before Linux 5.14) lacks MADV_POPULATE_WRITE.
void map_in(std::span<std::byte> range);

/// The share of range's resident bytes that this process maps with 2 MiB pages, from /proc/self/smaps (0
/// where it cannot say): how much of a shared window the node's /dev/shm let huge pages back.
[[nodiscard]] double huge_page_share(std::span<const std::byte> range);

}  // namespace psbench::mpi
