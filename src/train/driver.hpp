#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "mpi/communicator.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// What a training run leaves on one rank.
struct TrainOutcome {
  nlohmann::json results;               ///< the results file's contents on rank 0 (null elsewhere)
  std::vector<float> final_parameters;  ///< the final parameters on the evaluating rank (empty elsewhere)
};

/// Collective over comm (the job's ranks): validates the flags, loads each worker's partition, trains in
/// the chosen mode, evaluates the final parameters on the test split, writes the results file (and the
/// trace) from rank 0 and prints rank 0's console. Bad input throws CollectiveUserError on every rank.
TrainOutcome run_training(const mpi::Communicator& comm, const TrainOptions& options);

}  // namespace psbench::train
