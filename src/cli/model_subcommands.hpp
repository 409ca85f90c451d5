#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/first_rank.hpp"
#include "perf/scenario.hpp"
#include "perf/sim/simulation.hpp"

namespace psbench::cli {

/// The words of a comma-separated flag value, in order. Throws UserError naming flag for an empty list or word.
std::vector<std::string> split_words(const std::string& text, const std::string& flag);
/// --io LIST: sequential, parallel or both, each once, in the order given.
std::vector<perf::IoMode> parse_io_list(const std::string& text);
/// --read: whole or partition; empty gives the I/O mode's default (whole if sequential).
perf::ReadMode parse_read(const std::string& word, perf::IoMode io);
/// --input C,H,W with classes K.
perf::InputShape parse_input(const std::string& text, int classes);
/// --sim-times: calibrated or exponential.
perf::TimeDistribution parse_sim_times(const std::string& word);

/// Registers `psbench model predict`.
void add_predict(CLI::App& model);
/// Registers `psbench model calibrate`.
void add_calibrate(CLI::App& model);
/// Registers `psbench model validate`.
void add_validate(CLI::App& model);
/// Registers `psbench model plan`.
void add_plan(CLI::App& model);
/// Registers `psbench model saturation`.
void add_saturation(CLI::App& model);

}  // namespace psbench::cli
