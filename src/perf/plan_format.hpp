#pragma once

#include <string>

#include "perf/plan.hpp"

namespace psbench::perf {

/// The table notes where the simulation's total differs from mva's by more than this fraction.
inline constexpr double kPlanSimDisagreement = 0.25;

/// The format number of format_plan_json's document.
inline constexpr int kPlanJsonFormat = 1;

/// The plan as JSON (docs/formats.md#plan-json): the inputs, the grid's size, the recommendation, the runners-up
/// and the study's set-up, each with mva's prediction, the simulation's (or null and why) and its bottleneck.
std::string format_plan_json(const PlanRequest& request, const Plan& plan);

/// The plan as text: one line per listed configuration, the fastest and the study's set-up, then the
/// recommendation and the bottlenecks in words, where the simulation disagrees with mva, and why a confirmed
/// configuration was not simulated.
std::string format_plan_table(const PlanRequest& request, const Plan& plan);

}  // namespace psbench::perf
