#include "common/ring_allreduce_bytes.hpp"

#include "common/check.hpp"

namespace psbench {

std::uint64_t ring_allreduce_bytes(std::uint64_t bytes, int ranks) {
  PSBENCH_CHECK(ranks >= 1) << ranks << " ranks in an allreduce";
  const auto n = static_cast<std::uint64_t>(ranks);
  return 2 * (n - 1) * bytes / n;
}

}  // namespace psbench
