#include "perf/platform_spec.hpp"

#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

constexpr double kBitsPerByte = 8.0;
constexpr double kDefaultRackLatencyS = 50e-6;  // one-way, a switch and a kernel TCP stack
const std::string kRackSyntax = "rack:NODES:GBIT_PER_S[:LATENCY_US][:server=GBIT_PER_S]";
const std::string kServerKey = "server=";

std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ':')) parts.push_back(part);
  return parts;
}

double positive_number(const std::string& word, const std::string& text, const char* what) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || !(value > 0.0))
    throw UserError("--platform '" + text + "': " + what + " '" + word + "' is not a positive number (" + kRackSyntax +
                    ")");
  return value;
}

PlatformSpec parse_rack(const std::string& text, int cores) {
  auto parts = split_colons(text);
  std::optional<std::string> server_rate;
  if (parts.size() > 3 && parts.back().starts_with(kServerKey)) {
    server_rate = parts.back().substr(kServerKey.size());
    parts.pop_back();
  }
  if (parts.size() != 3 && parts.size() != 4)
    throw UserError("--platform '" + text + "' is not " + kRackSyntax + ", e.g. rack:8:1 or rack:5:1:server=10");
  PlatformSpec spec;
  spec.kind = PlatformKind::kRack;
  spec.text = text;
  const double nodes = positive_number(parts[1], text, "NODES");
  if (nodes != static_cast<int>(nodes)) throw UserError("--platform '" + text + "': NODES must be a whole number");
  spec.nodes = static_cast<int>(nodes);
  spec.link_Bps = positive_number(parts[2], text, "GBIT_PER_S") * 1e9 / kBitsPerByte;
  spec.server_link_Bps =
      server_rate ? positive_number(*server_rate, text, "server GBIT_PER_S") * 1e9 / kBitsPerByte : spec.link_Bps;
  spec.latency_s = parts.size() == 4 ? positive_number(parts[3], text, "LATENCY_US") * 1e-6 : kDefaultRackLatencyS;
  spec.cores_per_node = cores;
  return spec;
}

}  // namespace

PlatformSpec parse_platform(const std::string& text, int cores) {
  PlatformSpec spec;
  spec.text = text;
  spec.cores_per_node = cores;
  if (text == "this") return spec;
  if (text.starts_with("rack:")) return parse_rack(text, cores);
  if (text == "bluewaters") {
    spec.kind = PlatformKind::kBlueWaters;
    spec.nodes = 0;
    spec.link_Bps = BlueWatersFacts::kInjectionBps;
    spec.server_link_Bps = BlueWatersFacts::kInjectionBps;
    spec.latency_s = BlueWatersFacts::kMpiLatencyS;
    spec.hop_Bps = BlueWatersFacts::kTorusLinkBps;
    spec.hop_latency_s = BlueWatersFacts::kHopLatencyS;
    spec.cores_per_node = BlueWatersFacts::kCoresPerNode;
    return spec;
  }
  if (text.ends_with(".xml")) {
    if (!std::filesystem::is_regular_file(text)) throw UserError("--platform '" + text + "': no such platform file");
    spec.kind = PlatformKind::kXml;
    spec.xml_path = text;
    spec.nodes = 0;
    return spec;
  }
  throw UserError("--platform '" + text + "' is not one of: this, " + kRackSyntax + ", bluewaters, FILE.xml");
}

int nodes_for(const PlatformSpec& platform, int ranks, int ranks_per_node) {
  if (platform.kind == PlatformKind::kThis) return 1;
  const int per_node = ranks_per_node > 0 ? ranks_per_node : 1;
  return (ranks + per_node - 1) / per_node;
}

}  // namespace psbench::perf
