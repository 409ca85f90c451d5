#include "cli/first_rank.hpp"

#include "mpi/collective_error.hpp"
#include "mpi/communicator.hpp"

namespace psbench::cli {

void on_first_rank(const std::function<void()>& work) {
  const auto world = mpi::Communicator::world();
  mpi::run_collectively(world, [&] {
    if (world.rank() == 0) work();
  });
}

}  // namespace psbench::cli
