#include "perf/sim/sim_platform.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "common/error.hpp"

namespace psbench::perf {
namespace sg4 = simgrid::s4u;
namespace {

constexpr double kLoopbackBps = 1e15;  // messages within a host cost only what the calibration measured
constexpr int kTorusSpread = 4;        // the torus holds 4x the job's nodes: the job gets a scattered subset

sg4::Disk* attach_disk(sg4::Host* host, const StepCosts& costs, const Scenario& scenario) {
  const double rate = scenario.io == IoMode::kSequential ? costs.disk_sequential_Bps : costs.disk_parallel_Bps;
  return host->create_disk("storage", rate, rate)->seal();
}

std::vector<sg4::Host*> assign_ranks(const std::vector<sg4::Host*>& nodes, const StepCosts& costs) {
  std::vector<sg4::Host*> hosts;
  const int ranks = costs.workers + costs.servers;
  const int per_node = std::max(1, costs.ranks_per_node);
  for (int rank = 0; rank < ranks; ++rank)
    hosts.push_back(nodes[static_cast<std::size_t>(rank / per_node) % nodes.size()]);
  return hosts;
}

SimPlatform build_this(const StepCosts& costs, const Scenario& scenario) {
  auto* zone = sg4::create_full_zone("this");
  sg4::Host* host = zone->create_host("node-0", kSimFlopsPerS)->set_core_count(costs.cores_per_node)->seal();
  sg4::Link* loopback = zone->create_link("loopback", kLoopbackBps)->set_latency(0.0)->seal();
  zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                  {{loopback, sg4::LinkInRoute::Direction::NONE}}, false);
  zone->seal();
  return {assign_ranks({host}, costs), attach_disk(host, costs, scenario)};
}

// The rack sweep's placement: each server alone on one of the first S nodes, the workers round-robin on the
// others. With no node left for workers, every rank is packed r to a node as elsewhere.
std::vector<sg4::Host*> assign_rack_ranks(const std::vector<sg4::Host*>& nodes, const StepCosts& costs) {
  const int worker_nodes = static_cast<int>(nodes.size()) - costs.servers;
  if (worker_nodes < 1) return assign_ranks(nodes, costs);
  std::vector<sg4::Host*> hosts(nodes.begin(), nodes.begin() + costs.servers);
  for (int w = 0; w < costs.workers; ++w)
    hosts.push_back(nodes[static_cast<std::size_t>(costs.servers + w % worker_nodes)]);
  return hosts;
}

// Nodes behind the switch: the servers' S (a node each) and ceil(W / r) for the workers, at most the rack's.
int rack_nodes(const StepCosts& costs, const Scenario& scenario) {
  const int per_node = std::max(1, scenario.ranks_per_node > 0 ? scenario.ranks_per_node : costs.ranks_per_node);
  const int wanted = costs.servers + (costs.workers + per_node - 1) / per_node;
  return std::max(1, std::min(scenario.platform.nodes, wanted));
}

SimPlatform build_rack(const StepCosts& costs, const Scenario& scenario) {
  auto* zone = sg4::create_star_zone("rack");
  std::vector<sg4::Host*> nodes;
  const PlatformSpec& p = scenario.platform;
  const int count = rack_nodes(costs, scenario);
  for (int i = 0; i < count; ++i) {
    const std::string name = "node-" + std::to_string(i);
    sg4::Host* host = zone->create_host(name, kSimFlopsPerS)->set_core_count(costs.cores_per_node)->seal();
    const double rate = i < costs.servers && p.server_link_Bps > 0.0 ? p.server_link_Bps : p.link_Bps;
    auto* link = zone->create_split_duplex_link("link-" + name, rate)->set_latency(p.latency_s)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
    nodes.push_back(host);
  }
  zone->seal();
  return {assign_rack_ranks(nodes, costs), attach_disk(nodes.front(), costs, scenario)};
}

std::vector<unsigned long> torus_dimensions(int nodes) {
  const auto side = static_cast<unsigned long>(std::ceil(std::cbrt(static_cast<double>(nodes * kTorusSpread))));
  return {std::max(2UL, side), std::max(2UL, side), std::max(2UL, side)};
}

SimPlatform build_bluewaters(const StepCosts& costs, const Scenario& scenario, std::uint64_t seed) {
  const PlatformSpec& p = scenario.platform;
  std::vector<sg4::Host*> all;
  const int cores = costs.cores_per_node;
  auto netpoint = [&all, cores](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    sg4::Host* host = zone->create_host("node-" + std::to_string(id), kSimFlopsPerS)->set_core_count(cores)->seal();
    all.push_back(host);
    return std::make_pair(host->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  auto injection = [&p](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return zone->create_link("injection-" + std::to_string(id), p.link_Bps)->set_latency(p.latency_s)->seal();
  };
  sg4::create_torus_zone("gemini", nullptr, torus_dimensions(costs.nodes), {netpoint, {}, injection}, p.hop_Bps,
                         p.hop_latency_s, sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  std::mt19937_64 generator(seed);
  std::shuffle(all.begin(), all.end(), generator);  // arbitrary placement
  all.resize(static_cast<std::size_t>(costs.nodes));
  return {assign_ranks(all, costs), attach_disk(all.front(), costs, scenario)};
}

SimPlatform build_xml(const StepCosts& costs, const Scenario& scenario) {
  sg4::Engine::get_instance()->load_platform(scenario.platform.xml_path);
  std::vector<sg4::Host*> hosts = sg4::Engine::get_instance()->get_all_hosts();
  if (hosts.empty()) throw UserError("platform '" + scenario.platform.xml_path + "' has no host");
  std::sort(hosts.begin(), hosts.end(),
            [](const sg4::Host* a, const sg4::Host* b) { return a->get_name() < b->get_name(); });
  return {assign_ranks(hosts, costs), attach_disk(hosts.front(), costs, scenario)};
}

}  // namespace

SimPlatform build_platform(const StepCosts& costs, const Scenario& scenario, std::uint64_t seed) {
  switch (scenario.platform.kind) {
    case PlatformKind::kThis: return build_this(costs, scenario);
    case PlatformKind::kRack: return build_rack(costs, scenario);
    case PlatformKind::kBlueWaters: return build_bluewaters(costs, scenario, seed);
    case PlatformKind::kXml: return build_xml(costs, scenario);
  }
  return {};
}

}  // namespace psbench::perf
