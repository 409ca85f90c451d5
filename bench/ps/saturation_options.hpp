#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace psbench::bench {

/// The command line of bench_server_saturation.
struct SaturationOptions {
  std::vector<int> servers{1, 2};                        ///< S of each run
  std::vector<std::size_t> parameters{535818, 3274634};  ///< P of each run (mlp:512,256 and cnn)
  std::vector<double> think_ratios{2.0, 4.0};            ///< Z as multiples of D probed at k = 1 ...
  std::vector<double> think_us;                          ///< ... unless think times are given in us
  int max_clients = 0;                                   ///< k runs 1..max_clients (0: every rank left)
  double seconds = 0.25;                                 ///< shortest measurement of one point
  int min_cycles = 20;                                   ///< and at least this many exchanges at k = 1 ...
  double max_seconds = 1.0;                              ///< ... but no longer than this
  int repetitions = 5;                                   ///< interleaved passes over every k; figures are medians
  bool shared = true;                                    ///< clients reach the servers by shared window
  std::string json;                                      ///< where rank 0 writes the results (optional)
};

/// Parses argv; throws UserError naming the bad flag or value.
SaturationOptions parse_saturation_options(int argc, char** argv);

/// Checks the options against the job: S + max_clients ranks at most; fills max_clients when 0.
void fit_to_job(SaturationOptions& options, int world_size);

}  // namespace psbench::bench
