#include "cli/model_command.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "cli/model_subcommands.hpp"
#include "common/error.hpp"

namespace psbench::cli {

std::vector<std::string> split_words(const std::string& text, const std::string& flag) {
  if (text.empty()) throw UserError(flag + " is an empty list");
  std::vector<std::string> words;
  std::size_t begin = 0;
  for (std::size_t comma = text.find(','); begin <= text.size(); comma = text.find(',', begin)) {
    if (comma == std::string::npos) comma = text.size();
    if (comma == begin) throw UserError(flag + " '" + text + "' holds an empty word");
    words.push_back(text.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return words;
}

std::vector<perf::IoMode> parse_io_list(const std::string& text) {
  std::vector<perf::IoMode> modes;
  for (const std::string& word : split_words(text, "--io")) {
    perf::IoMode mode = perf::IoMode::kSequential;
    if (word == "parallel") {
      mode = perf::IoMode::kParallel;
    } else if (word != "sequential") {
      throw UserError("--io '" + word + "' is not one of: parallel, sequential");
    }
    if (std::ranges::find(modes, mode) == modes.end()) modes.push_back(mode);
  }
  return modes;
}

perf::ReadMode parse_read(const std::string& word, perf::IoMode io) {
  if (word.empty()) return io == perf::IoMode::kSequential ? perf::ReadMode::kWhole : perf::ReadMode::kPartition;
  if (word == "whole") return perf::ReadMode::kWhole;
  if (word == "partition") return perf::ReadMode::kPartition;
  throw UserError("--read '" + word + "' is not one of: partition, whole");
}

perf::InputShape parse_input(const std::string& text, int classes) {
  std::vector<int> sides;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    std::size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || value < 1) throw UserError("--input '" + text + "' is not C,H,W with positive sides");
    sides.push_back(value);
  }
  if (sides.size() != 3) throw UserError("--input '" + text + "' is not C,H,W, e.g. 1,28,28");
  if (classes < 2) throw UserError("--classes " + std::to_string(classes) + " is below 2");
  return {sides[0], sides[1], sides[2], classes};
}

perf::TimeDistribution parse_sim_times(const std::string& word) {
  if (word == "calibrated") return perf::TimeDistribution::kCalibrated;
  if (word == "exponential") return perf::TimeDistribution::kExponential;
  throw UserError("--sim-times '" + word + "' is not one of: calibrated, exponential");
}

void add_model_command(CLI::App& app) {
  CLI::App* model = app.add_subcommand(
      "model", "Calibrate, predict, plan with and validate the performance model, and compare its saturation curves");
  model->require_subcommand(1);
  add_calibrate(*model);
  add_predict(*model);
  add_validate(*model);
  add_plan(*model);
  add_saturation(*model);
}

}  // namespace psbench::cli
