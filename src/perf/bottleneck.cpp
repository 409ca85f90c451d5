#include "perf/bottleneck.hpp"

#include <algorithm>
#include <cstdio>

namespace psbench::perf {
namespace {

std::string percent(double share) { return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%"; }

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// "W workers beyond the knee of W*" or "below".
std::string knee_words(const Prediction& p) {
  if (!p.knee_workers) return "";
  return ", " + std::to_string(p.workers) + " workers " + (p.workers > *p.knee_workers ? "beyond" : "below") +
         " the knee of " + number(*p.knee_workers);
}

// The longest phase of the three, as a bottleneck, with its share of the total.
Bottleneck longest_phase(const Prediction& p, double& share) {
  const double setup = p.total_s - p.init_io_s - p.compute_s;
  const double longest = std::max({setup, p.init_io_s, p.compute_s});
  share = p.total_s > 0.0 ? longest / p.total_s : 0.0;
  if (longest == p.compute_s) return Bottleneck::kWorkers;
  return longest == p.init_io_s ? Bottleneck::kStartupRead : Bottleneck::kSetup;
}

}  // namespace

Diagnosis diagnose(const StepCosts& costs, const Prediction& p) {
  Diagnosis d;
  const double pushes = p.updates_per_s;
  d.server_cpu = std::min(1.0, pushes * costs.service_s);
  d.server_link = std::min(1.0, pushes * (costs.server_demand_s() - costs.service_s));
  if (costs.cores_shared()) {
    const double cores = static_cast<double>(costs.nodes) * costs.cores_per_node;
    d.cores = std::min(1.0, pushes * (costs.compute_s + costs.servers * costs.service_s) / cores);
  }
  d.beyond_knee = p.knee_workers && p.workers > *p.knee_workers;
  d.bottleneck = longest_phase(p, d.phase_share);
  if (d.bottleneck != Bottleneck::kWorkers) return d;
  const double server = std::min(1.0, d.server_cpu + d.server_link);
  if (std::max(server, d.cores) < kSaturatedUtilization) return d;
  if (d.cores > server) {
    d.bottleneck = Bottleneck::kSharedCores;
  } else {
    d.bottleneck = d.server_cpu >= d.server_link ? Bottleneck::kServerCpu : Bottleneck::kServerLink;
  }
  return d;
}

const char* bottleneck_name(Bottleneck bottleneck) {
  switch (bottleneck) {
    case Bottleneck::kStartupRead: return "startup-read";
    case Bottleneck::kSetup: return "setup";
    case Bottleneck::kServerCpu: return "server-cpu";
    case Bottleneck::kServerLink: return "server-link";
    case Bottleneck::kSharedCores: return "shared-cores";
    case Bottleneck::kWorkers: return "workers";
  }
  return "?";
}

std::string bottleneck_words(const Diagnosis& d, const Prediction& p, IoMode io) {
  const std::string of_total = " (" + percent(d.phase_share) + " of the total)";
  switch (d.bottleneck) {
    case Bottleneck::kStartupRead:
      if (io == IoMode::kSequential)
        return "the disk, read in turn: " + std::to_string(p.workers) + " readers one after another take " +
               number(p.init_io_s) + " s" + of_total + "; read in parallel (--io parallel)";
      return "the disk shared by all readers: the start-up read takes " + number(p.init_io_s) + " s" + of_total +
             "; fewer bytes per reader or a faster file system";
    case Bottleneck::kSetup:
      return "the set-up, each worker building its model" + of_total + "; a longer run amortises it";
    case Bottleneck::kServerCpu:
      return "the servers' CPU: updates keep a server busy " + percent(d.server_cpu) + " of the time" + knee_words(p) +
             "; add servers";
    case Bottleneck::kServerLink:
      return "the servers' links: a server waits on its link " + percent(d.server_link) + " of the time" +
             knee_words(p) + "; add servers or give their nodes faster links";
    case Bottleneck::kSharedCores:
      return "shared cores: the ranks keep the nodes' cores " + percent(d.cores) +
             " busy; fewer ranks per node or more nodes";
    case Bottleneck::kWorkers:
      return "the workers' own steps" + of_total + ": the servers are " + percent(d.server_cpu + d.server_link) +
             " busy" + knee_words(p) + "; more workers would go faster";
  }
  return "";
}

}  // namespace psbench::perf
