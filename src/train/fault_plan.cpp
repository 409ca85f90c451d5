#include "train/fault_plan.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/error.hpp"

namespace psbench::train {
namespace {

// "a=1,b=2" into {a: 1, b: 2}; every key must be one of allowed.
std::map<std::string, std::string> parse_fields(const std::string& flag, const std::string& text,
                                                const std::string& allowed) {
  std::map<std::string, std::string> fields;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto equals = item.find('=');
    const std::string key = item.substr(0, equals);
    if (equals == std::string::npos || ("," + allowed + ",").find("," + key + ",") == std::string::npos) {
      throw UserError(flag + " '" + text + "': expected fields " + allowed + ", got '" + item + "'");
    }
    fields[key] = item.substr(equals + 1);
  }
  return fields;
}

double number_field(const std::string& flag, const std::map<std::string, std::string>& fields, const std::string& key,
                    double minimum) {
  const auto found = fields.find(key);
  if (found == fields.end()) throw UserError(flag + " needs " + key + "=...");
  char* end = nullptr;
  const double value = std::strtod(found->second.c_str(), &end);
  if (found->second.empty() || *end != '\0' || !std::isfinite(value) || value < minimum) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", minimum);
    throw UserError(flag + " " + key + " must be a number of at least " + bound + ", got '" + found->second + "'");
  }
  return value;
}

int whole_field(const std::string& flag, const std::map<std::string, std::string>& fields, const std::string& key,
                double minimum) {
  const double value = number_field(flag, fields, key, minimum);
  if (value != std::floor(value) || value > 1e9) {
    throw UserError(flag + " " + key + " must be a whole number, got '" + fields.at(key) + "'");
  }
  return static_cast<int>(value);
}

}  // namespace

FaultPlan parse_fault(const std::string& text) {
  const std::string flag = "--inject-fault";
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  FaultPlan plan;
  if (kind == "crash") {
    const auto fields = parse_fields(flag, rest, "rank,step");
    plan.kind = FaultPlan::Kind::kCrash;
    plan.rank = whole_field(flag, fields, "rank", 0);
    plan.step = static_cast<std::uint64_t>(whole_field(flag, fields, "step", 1));
  } else if (kind == "diverge") {
    const auto fields = parse_fields(flag, rest, "rank,step");
    plan.kind = FaultPlan::Kind::kDiverge;
    plan.rank = whole_field(flag, fields, "rank", 0);
    plan.step = static_cast<std::uint64_t>(whole_field(flag, fields, "step", 1));
  } else if (kind == "stall") {
    const auto fields = parse_fields(flag, rest, "rank,seconds,step");
    plan.kind = FaultPlan::Kind::kStall;
    plan.rank = whole_field(flag, fields, "rank", 0);
    plan.seconds = number_field(flag, fields, "seconds", 0.0);
    if (fields.count("step") != 0) plan.step = static_cast<std::uint64_t>(whole_field(flag, fields, "step", 1));
  } else {
    throw UserError(flag + " '" + text +
                    "': expected crash:rank=R,step=K, stall:rank=R,seconds=T or diverge:rank=R,step=K");
  }
  return plan;
}

StragglerPlan parse_straggler(const std::string& text) {
  const std::string flag = "--straggler";
  const auto fields = parse_fields(flag, text, "rank,factor");
  StragglerPlan plan;
  plan.rank = whole_field(flag, fields, "rank", 0);
  plan.factor = number_field(flag, fields, "factor", 1.0);
  return plan;
}

std::string fault_text(const FaultPlan& plan) {
  char text[96];
  switch (plan.kind) {
    case FaultPlan::Kind::kNone: return "";
    case FaultPlan::Kind::kCrash:
      std::snprintf(text, sizeof text, "crash:rank=%d,step=%llu", plan.rank,
                    static_cast<unsigned long long>(plan.step));
      return text;
    case FaultPlan::Kind::kDiverge:
      std::snprintf(text, sizeof text, "diverge:rank=%d,step=%llu", plan.rank,
                    static_cast<unsigned long long>(plan.step));
      return text;
    case FaultPlan::Kind::kStall:
      std::snprintf(text, sizeof text, "stall:rank=%d,seconds=%g,step=%llu", plan.rank, plan.seconds,
                    static_cast<unsigned long long>(plan.step));
      return text;
  }
  return "";
}

std::string straggler_text(const StragglerPlan& plan) {
  if (plan.rank < 0) return "";
  char text[64];
  std::snprintf(text, sizeof text, "rank=%d,factor=%g", plan.rank, plan.factor);
  return text;
}

void validate_faults(const FaultPlan& fault, const StragglerPlan& straggler, int world_size, int servers) {
  if (fault.kind != FaultPlan::Kind::kNone && fault.rank >= world_size) {
    throw UserError("--inject-fault rank " + std::to_string(fault.rank) + " is not in the job (ranks 0 to " +
                    std::to_string(world_size - 1) + ")");
  }
  if (fault.kind == FaultPlan::Kind::kDiverge && fault.rank < servers) {
    throw UserError("--inject-fault diverge:rank=" + std::to_string(fault.rank) + " must name a worker (ranks " +
                    std::to_string(servers) + " to " + std::to_string(world_size - 1) + ")");
  }
  if (straggler.rank >= world_size || (straggler.rank >= 0 && straggler.rank < servers)) {
    throw UserError("--straggler rank " + std::to_string(straggler.rank) + " must be a worker (ranks " +
                    std::to_string(servers) + " to " + std::to_string(world_size - 1) + ")");
  }
}

}  // namespace psbench::train
