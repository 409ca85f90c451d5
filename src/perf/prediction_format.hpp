#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/prediction.hpp"
#include "perf/scenario.hpp"

namespace psbench::perf {

/// Output formats of `psbench model predict`.
enum class OutputFormat { kTable, kJson, kCsv };

/// The total's 80 % interval as "low-high" in seconds (three decimals), or "-" without one.
std::string interval_text(const Prediction& p);

/// One prediction as an object of docs/formats.md#predict-json's `predictions[]`.
nlohmann::ordered_json prediction_json(const Prediction& prediction);

/// The scenario as predict JSON's `inputs`: the flags that describe the run.
nlohmann::ordered_json scenario_json(const Scenario& scenario);

/// The predictions as the JSON of docs/formats.md#predict-json (inputs echoed, kind_order, one object per prediction).
std::string format_json(const Scenario& scenario, const std::vector<Prediction>& predictions);

/// One header line with the prediction keys, then one line per prediction.
std::string format_csv(const std::vector<Prediction>& predictions);

/// Aligned text, one line per prediction.
std::string format_table(const std::vector<Prediction>& predictions);

}  // namespace psbench::perf
