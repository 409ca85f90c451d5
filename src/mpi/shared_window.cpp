#include "mpi/shared_window.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi/handles.hpp"

namespace psbench::mpi {

SharedWindow::SharedWindow(const Communicator& node, std::size_t bytes) {
  Info info;
  // Each segment on its owner's pages (first touch near its core) rather than one contiguous block.
  info.set("alloc_shared_noncontig", "true");
  void* base = nullptr;
  const std::size_t alignment = bytes >= kHugeAlignment ? kHugeAlignment : kAlignment;
  const std::size_t padded = bytes == 0 ? 0 : bytes + alignment;  // room to start on a boundary
  const int status =
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(padded), 1, info.native(), node.native(), &base, &window_);
  PSBENCH_MPI_CALL(status);
  MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
  // The owner's boundary, by its own mapping: another process may map the window 4 KiB- rather than
  // 2 MiB-aligned (where /dev/shm holds no huge pages), so every process takes the owner's offset.
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  const std::uint64_t own[2] = {bytes == 0 ? 0 : (alignment - address % alignment) % alignment, bytes};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(node.size()));
  PSBENCH_MPI_CALL(MPI_Allgather(own, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, node.native()));
  for (std::size_t r = 0; r < all.size() / 2; ++r) placements_.push_back({all[2 * r], all[2 * r + 1]});
  // Advice only, in every process's mapping of every large segment, before its owner first touches it:
  // where /dev/shm has no huge pages (huge=never, tmpfs's default), the segments keep 4 KiB pages.
  for (int r = 0; r < node.size(); ++r) {
    const std::span<std::byte> range = segment(r);
    if (range.size() >= kHugeAlignment) (void)madvise(range.data(), range.size(), MADV_HUGEPAGE);
  }
}

SharedWindow::~SharedWindow() {
  if (window_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  if (MPI_Win_free(&window_) != MPI_SUCCESS) std::fprintf(stderr, "psbench: warning: MPI_Win_free failed\n");
}

std::span<std::byte> SharedWindow::segment(int node_rank) const {
  const Placement& placement = placements_.at(static_cast<std::size_t>(node_rank));
  if (placement.bytes == 0) return {};
  MPI_Aint bytes = 0;
  int unit = 0;
  void* base = nullptr;
  PSBENCH_MPI_CALL(MPI_Win_shared_query(window_, node_rank, &bytes, &unit, &base));
  return {static_cast<std::byte*>(base) + placement.skip, placement.bytes};
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

double huge_page_share(std::span<const std::byte> range) {
  const auto begin = reinterpret_cast<std::uintptr_t>(range.data());
  const std::uintptr_t end = begin + range.size();
  std::ifstream smaps("/proc/self/smaps");
  double resident_kb = 0.0, huge_kb = 0.0;
  bool inside = false;  // the current mapping overlaps range
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (fields >> std::hex >> from >> dash >> to && dash == '-') {  // a mapping's first line: from-to perms ...
      inside = from < end && to > begin;
      continue;
    }
    std::string key;
    double kb = 0.0;
    std::istringstream entry(line);
    if (!inside || !(entry >> key >> kb)) continue;
    if (key == "Rss:") resident_kb += kb;
    if (key == "ShmemPmdMapped:" || key == "FilePmdMapped:") huge_kb += kb;
  }
  return resident_kb > 0.0 ? huge_kb / resident_kb : 0.0;
}

}  // namespace psbench::mpi
