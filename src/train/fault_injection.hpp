#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "train/exchange/gradient_exchange.hpp"
#include "train/fault_plan.hpp"

namespace psbench::train {

/// Exit status of a rank that --inject-fault crashes (what a SIGKILLed process reports to a shell).
inline constexpr int kInjectedCrashExitCode = 137;

/// Does what fault plans for this rank when it reaches step: a crash prints one line and _exits at
/// once (no clean-up, no MPI_Finalize); a stall prints one line and sleeps. Other steps and ranks: nothing.
void inject_fault_at(const FaultPlan& fault, int rank, std::uint64_t step);

/// A server's update hook running fault for this rank (its step is the server's update count).
[[nodiscard]] std::function<void(std::uint64_t)> server_fault_hook(const FaultPlan& fault, int rank);

/// Wraps a worker's exchange so that, before each step's exchange, fault runs (inject_fault_at, counting
/// this worker's steps from 1) and, on the straggler's rank, the step's compute time is stretched by the
/// factor: the worker sleeps (factor - 1) times the time since its previous exchange returned (the
/// step's forward and backward passes). Returns exchange itself when neither plan concerns this rank.
[[nodiscard]] std::unique_ptr<GradientExchange> with_faults(std::unique_ptr<GradientExchange> exchange,
                                                            const FaultPlan& fault, const StragglerPlan& straggler,
                                                            int rank);

}  // namespace psbench::train
