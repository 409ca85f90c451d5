#include "data/loader.hpp"

#include "data/raw_partition.hpp"

namespace psbench::data {

LoadResult load_partition(const mpi::Communicator& readers, const LoadOptions& options) {
  RawPartition raw = read_partition(readers, options);
  LoadResult result;
  result.timing = raw.timing;
  result.samples = to_samples(std::move(raw));
  return result;
}

Samples load_split(const std::string& path, const std::string& split) {
  return to_samples(read_whole_split(path, split));
}

}  // namespace psbench::data
