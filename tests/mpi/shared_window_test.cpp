// The node communicator, rank translation and the shared window: every segment starts on a page
// boundary (a large one on a huge-page boundary), holds the bytes its rank asked for, and shows every
// rank what the others wrote.
#include "mpi/shared_window.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi/communicator.hpp"

namespace psbench::mpi {
namespace {

TEST(SplitByNode, OneMachineIsOneNodeInRankOrder) {
  const auto world = Communicator::world();
  const Communicator node = world.split_by_node();
  ASSERT_EQ(node.size(), world.size()) << "the tests run on one machine";
  EXPECT_EQ(node.rank(), world.rank());
}

TEST(RanksOf, TranslatesAnySplitBackToWorldRanks) {
  const auto world = Communicator::world();
  const Communicator parity = world.split(world.rank() % 2, world.size() - world.rank());  // reversed order
  const std::vector<int> world_ranks = world.ranks_of(parity);
  ASSERT_EQ(world_ranks.size(), static_cast<std::size_t>(parity.size()));
  for (std::size_t r = 0; r < world_ranks.size(); ++r) {
    EXPECT_EQ(world_ranks[r] % 2, world.rank() % 2);
    if (r > 0) {
      EXPECT_GT(world_ranks[r - 1], world_ranks[r]) << "ordered by the reversed key";
    }
  }
  EXPECT_EQ(world_ranks[static_cast<std::size_t>(parity.rank())], world.rank());
}

TEST(SharedWindow, SegmentsArePageAlignedAndVisibleToEveryRank) {
  const auto world = Communicator::world();
  const Communicator node = world.split_by_node();
  // Odd sizes, and one rank with none, so that Open MPI's own layout cannot align them by chance.
  const auto bytes_of = [](int rank) { return rank == 1 ? std::size_t{0} : 1000 + 8 * static_cast<std::size_t>(rank); };
  SharedWindow window(node, bytes_of(node.rank()));
  const std::span<std::byte> own = window.segment(node.rank());
  ASSERT_GE(own.size(), bytes_of(node.rank()));
  for (std::size_t i = 0; i < bytes_of(node.rank()); ++i) own[i] = static_cast<std::byte>((node.rank() + i) % 251);
  node.barrier();
  for (int r = 0; r < node.size(); ++r) {
    const std::span<std::byte> segment = window.segment(r);
    ASSERT_GE(segment.size(), bytes_of(r)) << "segment " << r;
    if (bytes_of(r) == 0) {
      EXPECT_TRUE(segment.empty()) << "segment " << r;
      continue;
    }
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(segment.data()) % SharedWindow::kAlignment, 0U) << "segment " << r;
    for (std::size_t i = 0; i < bytes_of(r); ++i) {
      ASSERT_EQ(segment[i], static_cast<std::byte>((r + i) % 251)) << "segment " << r << " byte " << i;
    }
  }
  node.barrier();  // nobody frees the window while another rank still reads it
}

TEST(SharedWindow, ALargeSegmentStartsOnAHugePageBoundaryOfItsOwnerAndEveryRankSeesItsBytes) {
  const auto world = Communicator::world();
  const Communicator node = world.split_by_node();
  // Past kHugeAlignment, odd sizes: each owner places its segment by its own mapping, which another
  // process may map on another 2 MiB offset, so the bytes each rank sees prove the placements agree.
  const auto bytes_of = [](int rank) {
    return SharedWindow::kHugeAlignment + 1000 + 8 * static_cast<std::size_t>(rank);
  };
  const auto pattern = [](int rank, std::size_t i) { return static_cast<std::byte>((3 * rank + i / 4093) % 251); };
  SharedWindow window(node, bytes_of(node.rank()));
  const std::span<std::byte> own = window.segment(node.rank());
  ASSERT_EQ(own.size(), bytes_of(node.rank()));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(own.data()) % SharedWindow::kHugeAlignment, 0U);
  for (std::size_t i = 0; i < own.size(); ++i) own[i] = pattern(node.rank(), i);
  node.barrier();
  for (int r = 0; r < node.size(); ++r) {
    const std::span<std::byte> segment = window.segment(r);
    ASSERT_EQ(segment.size(), bytes_of(r)) << "segment " << r;
    for (std::size_t i = 0; i < segment.size(); i += 4093) {
      ASSERT_EQ(segment[i], pattern(r, i)) << "segment " << r << " byte " << i;
    }
    ASSERT_EQ(segment.back(), pattern(r, segment.size() - 1)) << "segment " << r << "'s last byte";
  }
  node.barrier();  // nobody frees the window while another rank still reads it
}

// Minor page faults this process has taken so far.
long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Minor faults taken while writing one byte into every page of segment. Not instrumented: AddressSanitizer's
// check of each store would touch a page of its shadow memory for every 8 pages written, and count.
__attribute__((no_sanitize_address)) long faults_writing(std::span<std::byte> segment) {
  const long before = minor_faults();
  std::byte* const bytes = segment.data();  // no span call, which would be instrumented
  for (std::size_t i = 0; i < segment.size(); i += SharedWindow::kAlignment) bytes[i] = std::byte{1};
  return minor_faults() - before;
}

TEST(MapIn, AnotherRanksSegmentIsWrittenWithoutAFaultPerPage) {
  const auto world = Communicator::world();
  const Communicator node = world.split_by_node();
  if (node.size() < 2) GTEST_SKIP() << "needs a second rank's segment";
  // 1.75 MiB each: far more pages than the faults the check allows, and under kHugeAlignment, so that the
  // window keeps 4 KiB pages whatever huge pages the node's /dev/shm allows.
  constexpr std::size_t kPages = 448;
  SharedWindow mapped(node, kPages * SharedWindow::kAlignment);
  SharedWindow control(node, kPages * SharedWindow::kAlignment);
  for (SharedWindow* window : {&mapped, &control}) {  // each owner's pages exist before the others look
    const std::span<std::byte> own = window->segment(node.rank());
    std::fill(own.begin(), own.end(), std::byte{0});
  }
  node.barrier();
  if (node.rank() == 0) {
    const std::span<std::byte> target = mapped.segment(1).subspan(0, kPages * SharedWindow::kAlignment);
    map_in(target);
    const long with_map_in = faults_writing(target);
    const long without = faults_writing(control.segment(1).subspan(0, kPages * SharedWindow::kAlignment));
    EXPECT_GE(without, static_cast<long>(kPages / 2)) << "the control: a first write faults once per page";
    EXPECT_LT(with_map_in, static_cast<long>(kPages / 16)) << "map_in left the pages unmapped";
  }
  node.barrier();
}

}  // namespace
}  // namespace psbench::mpi
