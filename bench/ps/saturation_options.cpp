#include "saturation_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "common/error.hpp"

namespace psbench::bench {
namespace {

constexpr const char* kUsage =
    "usage: bench_server_saturation [--servers 1,2] [--parameters 535818,3274634] [--think-ratio 2,4 | "
    "--think-us Z1,Z2] [--max-clients K] [--seconds T] [--min-cycles N] [--max-seconds T] [--repetitions R] "
    "[--path shared|messages] [--json OUT]";

double parse_number(const std::string& flag, const std::string& text, double low, double high) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= low && value <= high)) {
    throw UserError(flag + " takes numbers from " + std::to_string(low) + " to " + std::to_string(high) + ", got '" +
                    text + "'");
  }
  return value;
}

std::vector<double> parse_list(const std::string& flag, const std::string& text, double low, double high) {
  std::vector<double> values;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    values.push_back(parse_number(flag, text.substr(start, comma - start), low, high));
    start = comma + 1;
  }
  return values;
}

template <typename T>
std::vector<T> whole(const std::vector<double>& values, const std::string& flag) {
  std::vector<T> result;
  for (const double v : values) {
    if (v != static_cast<double>(static_cast<T>(v))) throw UserError(flag + " takes whole numbers");
    result.push_back(static_cast<T>(v));
  }
  return result;
}

void apply(SaturationOptions& options, const std::string& flag, const std::string& value) {
  if (flag == "--servers") {
    options.servers = whole<int>(parse_list(flag, value, 1, 64), flag);
  } else if (flag == "--parameters") {
    options.parameters = whole<std::size_t>(parse_list(flag, value, 1, 1 << 30), flag);
  } else if (flag == "--think-ratio") {
    options.think_ratios = parse_list(flag, value, 0, 1000);
    options.think_us.clear();
  } else if (flag == "--think-us") {
    options.think_us = parse_list(flag, value, 0, 1e7);
  } else if (flag == "--max-clients") {
    options.max_clients = static_cast<int>(whole<int>({parse_number(flag, value, 1, 4096)}, flag)[0]);
  } else if (flag == "--seconds") {
    options.seconds = parse_number(flag, value, 0.01, 600);
  } else if (flag == "--max-seconds") {
    options.max_seconds = parse_number(flag, value, 0.01, 3600);
  } else if (flag == "--min-cycles") {
    options.min_cycles = whole<int>({parse_number(flag, value, 2, 100000)}, flag)[0];
  } else if (flag == "--repetitions") {
    options.repetitions = whole<int>({parse_number(flag, value, 1, 1000)}, flag)[0];
  } else if (flag == "--path") {
    if (value != "messages" && value != "shared") throw UserError("--path is messages or shared, got '" + value + "'");
    options.shared = value == "shared";
  } else if (flag == "--json") {
    options.json = value;
  } else {
    throw UserError(std::string("unknown flag '") + flag + "'; " + kUsage);
  }
}

}  // namespace

SaturationOptions parse_saturation_options(int argc, char** argv) {
  SaturationOptions options;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (!flag.starts_with("--")) throw UserError("unexpected argument '" + flag + "'; " + kUsage);
    if (i + 1 >= argc) throw UserError(flag + " needs a value; " + std::string(kUsage));
    apply(options, flag, argv[i + 1]);
  }
  return options;
}

void fit_to_job(SaturationOptions& options, int world_size) {
  const int most_servers = *std::max_element(options.servers.begin(), options.servers.end());
  const int clients = world_size - most_servers;
  if (clients < 1) {
    throw UserError("bench_server_saturation needs more ranks than servers: " + std::to_string(world_size) +
                    " ranks for up to " + std::to_string(most_servers) + " servers");
  }
  if (options.max_clients > clients) {
    throw UserError("--max-clients " + std::to_string(options.max_clients) + " needs " +
                    std::to_string(options.max_clients + most_servers) + " ranks, the job has " +
                    std::to_string(world_size));
  }
  if (options.max_clients == 0) options.max_clients = clients;
  if (options.max_seconds < options.seconds) {
    throw UserError("--max-seconds must be at least --seconds (" + std::to_string(options.seconds) + ")");
  }
}

}  // namespace psbench::bench
