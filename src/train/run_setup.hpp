#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/phase_timer.hpp"
#include "data/loader.hpp"
#include "mpi/communicator.hpp"
#include "nn/model.hpp"
#include "ps/topology.hpp"
#include "ps/transport/node_link.hpp"
#include "ps/transport/rma_link.hpp"
#include "train/checkpoint/resume_state.hpp"
#include "train/trace_recorder.hpp"
#include "train/train_options.hpp"

namespace psbench::train {

/// The training split's facts every rank needs, known first to the workers that read it.
struct DataFacts {
  nn::InputShape input;             ///< shape of one sample
  int num_classes = 0;              ///< classes
  std::uint64_t total_samples = 0;  ///< samples in the training split
};

/// Everything a rank holds once initialisation is over.
struct RunSetup {
  ps::Topology topology;                   ///< roles from ranks
  mpi::Communicator workers;               ///< the workers' communicator (the servers' own on servers)
  std::optional<data::LoadResult> loaded;  ///< this worker's partition and its load timing
  DataFacts facts;                         ///< shape, classes and size of the training split
  std::size_t parameters = 0;              ///< P
  std::unique_ptr<ps::NodeLink> link;      ///< async with --intra-node shared-memory: the node's window
  std::unique_ptr<ps::RmaLink> rma;        ///< async with rma for either path: the RMA windows
  std::unique_ptr<nn::Model> model;        ///< workers' model, holding the initial parameters (its gradients in
                                           ///< link's window when a server shares the node; freed before link)
  std::vector<float> initial_parameters;   ///< servers' copy of the initial parameters
  std::optional<data::Samples> test;       ///< the test split (local mode, evaluated every epoch)
  std::optional<ResumeState> resume;       ///< with --resume: where the run continues from
};

/// Collective: validates the flags, splits roles, loads every worker's partition (Phase::kInitIo), checks
/// the flags against the data, builds the workers' models and gives every rank the first worker's initial
/// parameters by broadcast (with --resume, the checkpoint's, and every rank learns where to continue).
/// Bad input throws CollectiveUserError on every rank.
RunSetup set_up_run(const mpi::Communicator& world, const TrainOptions& options, PhaseTimer& timer,
                    TraceRecorder& trace);

}  // namespace psbench::train
