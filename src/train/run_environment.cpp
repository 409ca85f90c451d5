#include "train/run_environment.hpp"

#include <map>
#include <string>

#include "common/resources.hpp"
#include "mpi/backoff_wait.hpp"
#include "nn/onednn_info.hpp"
#include "train/library_versions.hpp"

namespace psbench::train {

results::Environment run_environment(const std::vector<results::RankEntry>& per_rank, int servers, int workers,
                                     int threads) {
  results::Environment env;
  for (const results::RankEntry& entry : per_rank) {
    if (env.ranks_per_host[entry.host]++ == 0) env.hosts.push_back(entry.host);
    env.cores_per_host[entry.host] = entry.cores;
  }
  env.ranks = static_cast<int>(per_rank.size());
  env.cores = per_rank.empty() ? 0 : per_rank.front().cores;
  env.servers = servers;
  env.workers = workers;
  env.threads_per_rank = threads;
  env.wait_spin_us = mpi::spin_budget().count();
  env.libraries = library_versions().get<std::map<std::string, std::string>>();
  env.cpu = cpu_model_name();
  env.onednn_isa = nn::onednn_isa();
  return env;
}

}  // namespace psbench::train
