#include "mpi/shared_window.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>

#include "mpi/handles.hpp"

namespace psbench::mpi {

SharedWindow::SharedWindow(const Communicator& node, std::size_t bytes) {
  Info info;
  // Each segment on its owner's pages (first touch near its core) rather than one contiguous block.
  info.set("alloc_shared_noncontig", "true");
  void* base = nullptr;
  const std::size_t padded = bytes == 0 ? 0 : bytes + kAlignment;  // room to start on a page boundary
  const int status =
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(padded), 1, info.native(), node.native(), &base, &window_);
  PSBENCH_MPI_CALL(status);
  MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
}

SharedWindow::~SharedWindow() {
  if (window_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  if (MPI_Win_free(&window_) != MPI_SUCCESS) std::fprintf(stderr, "psbench: warning: MPI_Win_free failed\n");
}

std::span<std::byte> SharedWindow::segment(int node_rank) const {
  MPI_Aint bytes = 0;
  int unit = 0;
  void* base = nullptr;
  PSBENCH_MPI_CALL(MPI_Win_shared_query(window_, node_rank, &bytes, &unit, &base));
  if (bytes == 0) return {};
  // The mapping is page-aligned in every process, so each process finds the same offset here.
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  const std::size_t skip = (kAlignment - address % kAlignment) % kAlignment;
  return {static_cast<std::byte*>(base) + skip, static_cast<std::size_t>(bytes) - kAlignment};
}

void map_in(std::span<std::byte> range) {
  if (range.empty()) return;
  constexpr std::size_t kPage = SharedWindow::kAlignment;
  const auto first = reinterpret_cast<std::uintptr_t>(range.data()) / kPage * kPage;
  const auto end = reinterpret_cast<std::uintptr_t>(range.data() + range.size());
  if (madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0) return;
  // An atomic add of zero is a write to the page tables and changes no byte, whatever the owner writes.
  for (std::uintptr_t page = first; page < end; page += kPage) {
    auto* byte = reinterpret_cast<unsigned char*>(std::max(page, reinterpret_cast<std::uintptr_t>(range.data())));
    std::atomic_ref<unsigned char>(*byte).fetch_add(0, std::memory_order_relaxed);
  }
}

}  // namespace psbench::mpi
