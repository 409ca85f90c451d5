#include "cli/train_command.hpp"

#include <memory>
#include <string>

#include "cli/choice.hpp"
#include "data/load_modes.hpp"
#include "mpi/collective_error.hpp"
#include "mpi/communicator.hpp"
#include "ps/protocol_settings.hpp"
#include "train/driver.hpp"
#include "train/fault_plan.hpp"
#include "train/output_check.hpp"
#include "train/train_options.hpp"

namespace psbench::cli {

void add_train_command(CLI::App& app) {
  auto options = std::make_shared<train::TrainOptions>();
  auto io = std::make_shared<std::string>(data::io_mode_name(options->io));
  auto read = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "train",
      "Train a model: async (ranks 0..S-1 are parameter servers, the rest workers), sync (every rank a worker, "
      "gradients averaged by MPI_Allreduce), bmuf or average (every rank a worker running local SGD; every block "
      "the models are combined by MPI_Allreduce: CNTK's block momentum, or model averaging) or local (one "
      "process, the reference). Run under mpirun -np N.");
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
  command->add_option("--bucket-bytes", options->bucket_bytes,
                      "sync mode: bytes of gradient per allreduce bucket, started as the backward pass produces it "
                      "(default " +
                          std::to_string(train::kDefaultBucketBytes) + ")");
  command->add_flag("--pipeline", options->pipeline,
                    "async mode: compute the next step while this step's push and pull are in flight "
                    "(CNTK's UsePipeline; adds up to one step of staleness)");
  command->add_option(
      "--staleness", options->staleness,
      "async mode: bounded staleness (SSP): a worker runs at most S clocks (steps) ahead of the slowest "
      "(0: bulk-synchronous through the servers; default unbounded)");
  command->add_option(
      "--delay-compensation", options->delay_compensation,
      "async mode: delay-compensated ASGD (DC-ASGD) with this lambda >= 0 (MXNet's default: 0.04): each push's "
      "gradient g becomes g + lambda*g*g*(w - w_m), w_m the shard last sent to its worker; each server keeps W "
      "such copies: W x shard floats per server (default off)");
  command->add_option("--block-samples", options->block_samples,
                      "bmuf and average modes: samples each worker trains on between two synchronisations (CNTK's "
                      "blockSizePerWorker; default " +
                          std::to_string(train::kDefaultBmufBlockSamples) + " in bmuf, " +
                          std::to_string(train::kDefaultAverageBlockSamples) + " in average)");
  command->add_option("--block-momentum", options->block_momentum,
                      "bmuf mode: block momentum bm in [0, 1) (default 1 - 1/W for W workers)");
  command->add_option("--block-lr", options->block_lr, "bmuf mode: block learning rate (default 1)");
  auto nesterov = std::make_shared<std::string>();
  command->add_option("--nesterov", *nesterov, "bmuf mode: on | off, the block update's Nesterov step (default on)");
  command
      ->add_option("--compress", options->compress,
                   "sync and async mode: none | onebit (CNTK's 1-bit SGD: one bit per gradient value and two "
                   "floats per column; docs/running.md, \"1-bit SGD\")")
      ->transform(choice({train::Compression::kNone, train::Compression::kOneBit}, train::compression_name))
      ->default_str(std::string(train::compression_name(options->compress)));
  command->add_flag_callback(
      "--no-error-feedback", [options] { options->error_feedback = false; },
      "with --compress onebit: drop each step's quantization error instead of adding it to the next step's gradient");
  command->add_option("--eval-every", options->eval_every,
                      "evaluate on the test split every N steps of the first worker (timed apart from training)");
  command->add_option("--target-accuracy", options->target_accuracy,
                      "record the training time at which the test accuracy first reaches A, in (0, 1] (needs "
                      "--eval-every)");
  command->add_flag("--stop-at-target", options->stop_at_target, "stop every rank once --target-accuracy is reached");
  command
      ->add_option("--slow-evaluation", options->slow_evaluation,
                   "testing: each evaluation during training runs F times (F a whole number), so it takes F times "
                   "as long; the time-to-accuracy clock leaves it out")
      ->capture_default_str();
  command->add_option("--servers", options->servers, "parameter-server ranks S in async mode (ranks 0..S-1)")
      ->capture_default_str();
  command
      ->add_option("--intra-node", options->intra_node,
                   "how workers reach a server on their node: shared-memory (MPI-3 shared window) | messages | rma "
                   "(MPI one-sided)")
      ->transform(choice({train::IntraNode::kSharedMemory, train::IntraNode::kMessages, train::IntraNode::kRma},
                         train::intra_node_name))
      ->default_str(std::string(train::intra_node_name(options->intra_node)));
  command
      ->add_option("--inter-node", options->inter_node,
                   "how workers reach a server on another node: messages | rma (MPI one-sided: remote writes where "
                   "the network does RDMA)")
      ->transform(choice({train::InterNode::kMessages, train::InterNode::kRma}, train::inter_node_name))
      ->default_str(std::string(train::inter_node_name(options->inter_node)));
  command->add_option("--mode", options->mode, "async | sync | local | bmuf | average")
      ->transform(choice(
          {train::Mode::kAsync, train::Mode::kSync, train::Mode::kLocal, train::Mode::kBmuf, train::Mode::kAverage},
          train::mode_name))
      ->default_str(std::string(train::mode_name(options->mode)));
  command->add_option("--io", *io, "sequential (workers read one after another) | parallel (MPI-IO)")
      ->capture_default_str();
  command->add_option("--read", *read,
                      "whole (each worker reads all, keeps its part) | partition "
                      "(default: whole with --io sequential, partition with --io parallel)");
  command->add_flag("--cold-cache", options->cold_cache, "drop the file's cached pages before each worker reads");
  command->add_option("--threads", options->threads, "oneDNN threads per rank")->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the initial weights and the shuffles")->capture_default_str();
  command->add_option("--out", options->out_path, "results JSON file (written atomically by rank 0)")->required();
  command->add_option("--trace", options->trace_path, "Chrome trace-event JSON file (open in Perfetto)");
  command->add_flag("--quiet", options->quiet, "print only errors");
  auto fault = std::make_shared<std::string>();
  auto straggler = std::make_shared<std::string>();
  command->add_option(
      "--inject-fault", *fault,
      "testing: crash:rank=R,step=K (rank R _exits at its step K), diverge:rank=R,step=K (worker rank R's "
      "gradient becomes NaN at its step K) or stall:rank=R,seconds=T[,step=K] "
      "(rank R sleeps T s at its step K, default 1); docs/reliability.md");
  command->add_option("--straggler", *straggler,
                      "rank=R,factor=F: worker rank R sleeps (F - 1) times its measured compute time each step");
  command
      ->add_option("--stall-timeout", options->stall_timeout,
                   "seconds a server waits for a silent worker, and a worker for a silent server, before ending "
                   "the job naming it (0: never)")
      ->capture_default_str();
  auto checkpoint_every = std::make_shared<std::string>();
  command->add_option("--checkpoint", options->checkpoint_path,
                      "HDF5 checkpoint file, rewritten atomically (parameters, velocity, counters, positions)");
  command->add_option("--checkpoint-every", *checkpoint_every,
                      "epoch (default) or N: steps between checkpoints (async: pushes each server receives, all "
                      "workers together; sync and local: steps of each worker)");
  command->add_option("--resume", options->resume_path, "continue from a checkpoint written by --checkpoint");
  command->callback([command, options, io, read, fault, straggler, checkpoint_every, nesterov] {
    const auto world = mpi::Communicator::world();
    options->servers_given = command->count("--servers") > 0;
    mpi::run_collectively(world, [&] {  // the same words, defaults and errors as `psbench data load`
      if (!nesterov->empty()) options->nesterov = train::parse_on_off("--nesterov", *nesterov);
      options->io = data::parse_io_mode(*io);
      options->read = read->empty() ? data::default_read_mode(options->io) : data::parse_read_mode(*read);
      if (!fault->empty()) options->fault = train::parse_fault(*fault);
      if (!straggler->empty()) options->straggler = train::parse_straggler(*straggler);
      if (!checkpoint_every->empty()) options->checkpoint_every = train::parse_checkpoint_every(*checkpoint_every);
      if (world.rank() == 0) train::check_output_paths(*options);  // rank 0 writes them, after training
    });
    train::run_training(world, *options);
  });
}

}  // namespace psbench::cli
