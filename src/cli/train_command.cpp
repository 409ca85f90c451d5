#include "cli/train_command.hpp"

#include <map>
#include <memory>
#include <string>

#include "cli/choice.hpp"
#include "mpi/communicator.hpp"
#include "train/driver.hpp"
#include "train/train_options.hpp"

namespace psbench::cli {

void add_train_command(CLI::App& app) {
  auto options = std::make_shared<train::TrainOptions>();
  CLI::App* command = app.add_subcommand(
      "train",
      "Train a model: async (ranks 0..S-1 are parameter servers, the rest workers), sync (every rank a worker, "
      "gradients averaged by MPI_Allreduce) or local (one process, the reference). Run under mpirun -np N.");
  command->add_option("--data", options->data_path, "HDF5 dataset (psbench data convert|synth)")->required();
  command->add_option("--model", options->model_spec, "model spec: mlp:H1,H2,... or cnn")->required();
  command->add_option("--batch", options->batch, "samples per worker step")->capture_default_str();
  command->add_option("--epochs", options->epochs, "passes over the training set")->capture_default_str();
  command->add_option("--lr", options->learning_rate, "SGD learning rate")->capture_default_str();
  command->add_option("--momentum", options->momentum, "heavy-ball momentum in [0, 1); 0 is plain SGD")
      ->capture_default_str();
  command
      ->add_option("--warmup-steps", options->warmup_steps,
                   "scale each worker's first N gradients by k/N (learning-rate warm-up; 0: none)")
      ->capture_default_str();
  command->add_option("--servers", options->servers, "parameter-server ranks S in async mode (ranks 0..S-1)")
      ->capture_default_str();
  const std::map<std::string, train::IntraNode> intra_node{{"shared-memory", train::IntraNode::kSharedMemory},
                                                           {"messages", train::IntraNode::kMessages}};
  command
      ->add_option("--intra-node", options->intra_node,
                   "how workers reach a server on their node: shared-memory (MPI-3 shared window) | messages")
      ->transform(choice(intra_node))
      ->default_str("shared-memory");
  const std::map<std::string, train::Mode> modes{
      {"async", train::Mode::kAsync}, {"sync", train::Mode::kSync}, {"local", train::Mode::kLocal}};
  command->add_option("--mode", options->mode, "async | sync | local")->transform(choice(modes))->default_str("async");
  const std::map<std::string, data::IoMode> io_modes{{"sequential", data::IoMode::kSequential},
                                                     {"parallel", data::IoMode::kParallel}};
  command->add_option("--io", options->io, "sequential (workers read one after another) | parallel (MPI-IO)")
      ->transform(choice(io_modes))
      ->default_str("sequential");
  const std::map<std::string, data::ReadMode> read_modes{{"whole", data::ReadMode::kWhole},
                                                         {"partition", data::ReadMode::kPartition}};
  CLI::Option* read = command
                          ->add_option("--read", options->read,
                                       "whole (each worker reads all, keeps its part) | partition "
                                       "(default: whole with --io sequential, partition with --io parallel)")
                          ->transform(choice(read_modes));
  command->add_flag("--cold-cache", options->cold_cache, "drop the file's cached pages before each worker reads");
  command->add_option("--threads", options->threads, "oneDNN threads per rank")->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the initial weights and the shuffles")->capture_default_str();
  command->add_option("--out", options->out_path, "results JSON file (written atomically by rank 0)")->required();
  command->add_option("--trace", options->trace_path, "Chrome trace-event JSON file (open in Perfetto)");
  command->add_flag("--quiet", options->quiet, "print only errors");
  command->callback([options, read] {
    if (read->count() == 0) {
      options->read = options->io == data::IoMode::kParallel ? data::ReadMode::kPartition : data::ReadMode::kWhole;
    }
    train::run_training(mpi::Communicator::world(), *options);
  });
}

}  // namespace psbench::cli
