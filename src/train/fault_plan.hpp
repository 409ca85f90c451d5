#pragma once

#include <cstdint>
#include <string>

namespace psbench::train {

/// What --inject-fault asks one rank to do (tests and docs/reliability.md use it).
struct FaultPlan {
  /// The fault's kind: none, a crash (_exit, no clean-up), a stall (a sleep) or a divergence (a worker's gradient
  /// becomes NaN, so its next loss is not finite).
  enum class Kind { kNone, kCrash, kStall, kDiverge };
  Kind kind = Kind::kNone;  ///< what happens
  int rank = -1;            ///< world rank it happens on
  std::uint64_t step = 1;   ///< crash, diverge: the step (a worker's, or a server's update count) it happens at, from 1
  double seconds = 0.0;     ///< stall: how long the rank sleeps, at its step
};

/// What --straggler asks: one worker's compute slowed by factor (it sleeps for the measured extra).
struct StragglerPlan {
  int rank = -1;        ///< world rank of the slow worker; -1 for none
  double factor = 1.0;  ///< compute time multiplier, >= 1
};

/// Parses "crash:rank=R,step=K", "stall:rank=R,seconds=T[,step=K]" or "diverge:rank=R,step=K"; throws UserError
/// naming the flag.
FaultPlan parse_fault(const std::string& text);
/// Parses "rank=R,factor=F"; throws UserError naming the flag.
StragglerPlan parse_straggler(const std::string& text);
/// The flag spelling of plan ("" for none), for the results' config.
std::string fault_text(const FaultPlan& plan);
/// The flag spelling of plan ("" for none), for the results' config.
std::string straggler_text(const StragglerPlan& plan);
/// Checks the plans against the job (ranks in range, a straggler that is a worker); throws UserError.
void validate_faults(const FaultPlan& fault, const StragglerPlan& straggler, int world_size, int servers);

}  // namespace psbench::train
