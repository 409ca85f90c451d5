#pragma once

#include <string>

namespace psbench::perf {

/// Which platform a prediction is for.
enum class PlatformKind { kThis, kRack, kBlueWaters, kXml };

/// A parsed --platform: `this`, `rack:NODES:GBPS[:LATENCY_US][:server=GBPS]`, `bluewaters` or a SimGrid XML file.
struct PlatformSpec {
  PlatformKind kind = PlatformKind::kThis;  ///< which
  std::string text;                         ///< as given, e.g. rack:8:1
  int nodes = 1;                            ///< rack: nodes behind the switch (0: as many as the ranks need)
  double link_Bps = 0.0;                    ///< rack, bluewaters: a node's link (injection) rate, bytes/s
  double server_link_Bps = 0.0;             ///< rack, bluewaters: the link of a node that holds a server, bytes/s
  double latency_s = 0.0;                   ///< rack, bluewaters: one-way latency of a node's link
  double hop_Bps = 0.0;                     ///< bluewaters: torus link rate per direction, bytes/s
  double hop_latency_s = 0.0;               ///< bluewaters: latency per torus hop
  int cores_per_node = 0;                   ///< bluewaters: 32; else the calibrated machine's cores
  std::string xml_path;                     ///< xml: the file
};

/// Blue Waters figures (MODEL-FACTS.md): XE6 nodes with 32 integer cores, Gemini torus links of
/// 4.68-9.375 GB/s per direction (the lower end here), about 105 ns per hop, injection 5.8 GB/s as MPI sees
/// it, MPI latency 1.3 us, Lustre /scratch 963 GB/s aggregate.
struct BlueWatersFacts {
  static constexpr int kCoresPerNode = 32;              ///< XE6 integer cores
  static constexpr double kTorusLinkBps = 4.68e9;       ///< slowest Gemini link, per direction
  static constexpr double kHopLatencyS = 105e-9;        ///< per router hop
  static constexpr double kInjectionBps = 5.8e9;        ///< per node, as MPI sees it
  static constexpr double kMpiLatencyS = 1.3e-6;        ///< lower end of MPI latency
  static constexpr double kLustreAggregateBps = 963e9;  ///< /scratch aggregate
};

/// Parses --platform; cores is the calibrated machine's core count. `server=GBPS` gives the servers' nodes a
/// link of their own rate (rack.sh up --server-rate), else they have the others'. Throws UserError for a
/// malformed rack spec, an unknown word or an XML file that does not exist.
PlatformSpec parse_platform(const std::string& text, int cores);

/// Nodes the job occupies: 1 on `this`, ceil(ranks / ranks_per_node) elsewhere.
int nodes_for(const PlatformSpec& platform, int ranks, int ranks_per_node);

}  // namespace psbench::perf
