#include "train/train_options.hpp"

#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "data/load_modes.hpp"

namespace psbench::train {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kAsync: return "async";
    case Mode::kSync: return "sync";
    case Mode::kLocal: return "local";
    case Mode::kBmuf: return "bmuf";
    case Mode::kAverage: return "average";
  }
  return "unknown";
}

std::optional<std::string> block_overshoot_warning(const TrainOptions& options, int workers) {
  if (options.mode != Mode::kBmuf || !options.block_momentum || !options.block_lr) return std::nullopt;
  const double gain = (1.0 - *options.block_momentum) * *options.block_lr * static_cast<double>(workers);
  if (gain < 2.0) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text,
                "(1 - --block-momentum) x --block-lr x W = %g >= 2 with %d workers: the block update may overshoot",
                gain, workers);
  return text;
}

bool parse_on_off(const std::string& flag, const std::string& word) {
  if (word == "on") return true;
  if (word == "off") return false;
  throw UserError(flag + " takes on or off, got '" + word + "'");
}

bool workers_in_lockstep(Mode mode) { return mode == Mode::kSync || mode == Mode::kBmuf || mode == Mode::kAverage; }

TrainOptions with_block_defaults(TrainOptions options, int workers) {
  if (options.mode == Mode::kAverage)
    options.block_samples = options.block_samples.value_or(kDefaultAverageBlockSamples);
  if (options.mode != Mode::kBmuf) return options;
  options.block_samples = options.block_samples.value_or(kDefaultBmufBlockSamples);
  options.block_momentum = options.block_momentum.value_or(1.0 - 1.0 / static_cast<double>(workers));
  options.block_lr = options.block_lr.value_or(1.0);
  options.nesterov = options.nesterov.value_or(true);
  return options;
}

std::string_view compression_name(Compression compression) {
  return compression == Compression::kOneBit ? "onebit" : "none";
}

std::string_view intra_node_name(IntraNode path) {
  switch (path) {
    case IntraNode::kMessages: return "messages";
    case IntraNode::kRma: return "rma";
    case IntraNode::kSharedMemory: break;
  }
  return "shared-memory";
}

std::string_view inter_node_name(InterNode path) { return path == InterNode::kRma ? "rma" : "messages"; }

namespace {

std::string not_in_mode(const std::string& flag, const std::string& applies_to, Mode mode) {
  return flag + " applies to " + applies_to + ", not --mode " + std::string(mode_name(mode));
}

// The block learners' flags (bmuf, average): each in its own modes, with values CNTK accepts.
void validate_block_options(const TrainOptions& options) {
  const bool block_mode = options.mode == Mode::kBmuf || options.mode == Mode::kAverage;
  const std::string mode(mode_name(options.mode));
  if (options.block_samples && !block_mode) {
    throw UserError(not_in_mode("--block-samples",
                                "--mode bmuf and --mode average only (the samples each worker "
                                "trains on between two synchronisations)",
                                options.mode));
  }
  const bool bmuf = options.mode == Mode::kBmuf;
  if (options.block_momentum && !bmuf) {
    throw UserError(not_in_mode("--block-momentum", "--mode bmuf only (the block update's momentum)", options.mode));
  }
  if (options.block_lr && !bmuf) {
    throw UserError(not_in_mode("--block-lr", "--mode bmuf only (the block update's learning rate)", options.mode));
  }
  if (options.nesterov && !bmuf) {
    throw UserError(not_in_mode("--nesterov", "--mode bmuf only (the block update's Nesterov step)", options.mode));
  }
  if (!block_mode) return;
  if (options.servers_given) {
    throw UserError("--servers applies to --mode async only: --mode " + mode +
                    " has no parameter server (every rank is a worker; the blocks are summed by allreduce)");
  }
  if (options.block_samples && *options.block_samples < static_cast<std::uint64_t>(options.batch)) {
    throw UserError("--block-samples " + std::to_string(*options.block_samples) +
                    " is below one batch per worker (--batch " + std::to_string(options.batch) +
                    "): a block needs at least one step; use --block-samples " + std::to_string(options.batch) +
                    " or more");
  }
  if (options.block_momentum && !(*options.block_momentum >= 0.0 && *options.block_momentum < 1.0)) {
    throw UserError("--block-momentum must lie in [0, 1), got " + std::to_string(*options.block_momentum) +
                    " (CNTK's default is 1 - 1/W for W workers)");
  }
  if (options.block_lr && !(*options.block_lr > 0.0 && std::isfinite(*options.block_lr))) {
    throw UserError("--block-lr must be a positive number, got " + std::to_string(*options.block_lr));
  }
  if (!options.checkpoint_path.empty() || !options.resume_path.empty()) {
    throw UserError("--checkpoint and --resume apply to --mode async, sync and local, not --mode " + mode +
                    " (a checkpoint does not hold the block update's state)");
  }
}

void validate_compression(const TrainOptions& options) {
  if (!options.error_feedback && options.compress == Compression::kNone) {
    throw UserError("--no-error-feedback applies to --compress onebit only (the quantization error it drops)");
  }
  if (options.compress == Compression::kNone) return;
  if (options.mode == Mode::kLocal) {
    throw UserError(
        "--compress onebit compresses what ranks exchange, and --mode local exchanges nothing: use "
        "--mode sync or --mode async");
  }
  if (options.mode == Mode::kBmuf || options.mode == Mode::kAverage) {
    throw UserError("--compress onebit compresses gradients, and --mode " + std::string(mode_name(options.mode)) +
                    " exchanges block deltas once per block: use it with --mode sync or --mode async");
  }
  if (options.mode == Mode::kSync && options.bucket_bytes) {
    throw UserError(
        "--bucket-bytes sets the buckets of the float allreduce; --compress onebit exchanges the whole "
        "gradient after the backward pass: leave --bucket-bytes out");
  }
}

}  // namespace

void validate_options(const TrainOptions& options, int world_size) {
  if (options.data_path.empty()) throw UserError("--data is required: the HDF5 file to train on");
  if (options.model_spec.empty()) throw UserError("--model is required, e.g. --model mlp:512,256 or --model cnn");
  if (options.out_path.empty()) throw UserError("--out is required: the results JSON file to write");
  if (options.batch <= 0) throw UserError("--batch must be positive, got " + std::to_string(options.batch));
  if (options.epochs <= 0) throw UserError("--epochs must be positive, got " + std::to_string(options.epochs));
  if (!(options.learning_rate > 0.0) || !std::isfinite(options.learning_rate)) {
    throw UserError("--lr must be a positive number, got " + std::to_string(options.learning_rate));
  }
  if (!(options.momentum >= 0.0 && options.momentum < 1.0)) {
    throw UserError("--momentum must lie in [0, 1), got " + std::to_string(options.momentum));
  }
  if (options.warmup_steps < 0) {
    throw UserError("--warmup-steps must be 0 or more, got " + std::to_string(options.warmup_steps));
  }
  if (options.bucket_bytes && *options.bucket_bytes < sizeof(float)) {
    throw UserError("--bucket-bytes must be at least 4 (one float), got " + std::to_string(*options.bucket_bytes));
  }
  if (options.bucket_bytes && options.mode != Mode::kSync) {
    throw UserError("--bucket-bytes applies to --mode sync only (the allreduce's buckets), not --mode " +
                    std::string(mode_name(options.mode)));
  }
  if ((options.intra_node == IntraNode::kRma || options.inter_node == InterNode::kRma) &&
      options.mode != Mode::kAsync) {
    throw UserError(
        "rma (--intra-node, --inter-node) is how workers reach parameter servers: --mode async only, not "
        "--mode " +
        std::string(mode_name(options.mode)));
  }
  if (options.pipeline && options.mode != Mode::kAsync) {
    throw UserError(
        "--pipeline applies to --mode async only (the push and pull of one step overlap the next), not "
        "--mode " +
        std::string(mode_name(options.mode)));
  }
  if (options.staleness && *options.staleness < 0) {
    throw UserError("--staleness must be 0 or more clocks, got " + std::to_string(*options.staleness));
  }
  if (options.staleness && options.mode != Mode::kAsync) {
    throw UserError(
        "--staleness applies to --mode async only (a bound on the workers' clocks at the servers), not "
        "--mode " +
        std::string(mode_name(options.mode)));
  }
  if (options.delay_compensation &&
      !(*options.delay_compensation >= 0.0 && std::isfinite(*options.delay_compensation))) {
    throw UserError("--delay-compensation must be a finite lambda of 0 or more, got " +
                    std::to_string(*options.delay_compensation));
  }
  if (options.delay_compensation && options.mode != Mode::kAsync) {
    throw UserError(
        "--delay-compensation applies to --mode async only (the servers compensate each push for its delay), not "
        "--mode " +
        std::string(mode_name(options.mode)));
  }
  validate_block_options(options);
  validate_compression(options);
  if (options.eval_every && *options.eval_every <= 0) {
    throw UserError("--eval-every must be a positive number of steps, got " + std::to_string(*options.eval_every));
  }
  if (options.target_accuracy && !(*options.target_accuracy > 0.0 && *options.target_accuracy <= 1.0)) {
    throw UserError("--target-accuracy must lie in (0, 1], got " + std::to_string(*options.target_accuracy));
  }
  if (options.target_accuracy && !options.eval_every) {
    throw UserError("--target-accuracy needs --eval-every N: the steps between the test evaluations that time it");
  }
  if (options.slow_evaluation < 1) {
    throw UserError("--slow-evaluation must be a whole factor of 1 or more, got " +
                    std::to_string(options.slow_evaluation));
  }
  if (options.slow_evaluation > 1 && !options.eval_every) {
    throw UserError("--slow-evaluation needs --eval-every N: it stretches the evaluations during training");
  }
  if (options.stop_at_target && !options.target_accuracy) {
    throw UserError("--stop-at-target needs --target-accuracy A: the test accuracy to stop at");
  }
  if (options.threads <= 0) throw UserError("--threads must be positive, got " + std::to_string(options.threads));
  if (!(options.stall_timeout >= 0.0) || !std::isfinite(options.stall_timeout)) {
    throw UserError("--stall-timeout must be 0 (off) or a positive number of seconds, got " +
                    std::to_string(options.stall_timeout));
  }
  if (options.checkpoint_every && options.checkpoint_path.empty()) {
    throw UserError("--checkpoint-every needs --checkpoint FILE.h5: the file to write the checkpoints to");
  }
  validate_faults(options.fault, options.straggler, world_size, options.mode == Mode::kAsync ? options.servers : 0);
  switch (options.mode) {
    case Mode::kAsync:
      if (world_size < 2) {
        throw UserError("--mode async needs at least 2 ranks (a server and a worker), got " +
                        std::to_string(world_size) + ": run it under mpirun -np N, or use --mode local");
      }
      if (options.servers < 1) {
        throw UserError("--servers must be at least 1 in async mode, got " + std::to_string(options.servers));
      }
      if (options.servers >= world_size) {
        throw UserError("--servers " + std::to_string(options.servers) + " must be below the number of ranks (" +
                        std::to_string(world_size) + ") so that at least one rank is a worker");
      }
      break;
    case Mode::kSync:
    case Mode::kBmuf:
    case Mode::kAverage: break;
    case Mode::kLocal:
      if (world_size != 1) {
        throw UserError("--mode local trains in one process, but the job has " + std::to_string(world_size) +
                        " ranks: run it without mpirun, or use --mode async or sync");
      }
      break;
  }
}

results::Config options_config(const TrainOptions& options) {
  return {options.data_path,
          options.model_spec,
          options.batch,
          options.epochs,
          options.learning_rate,
          options.momentum,
          options.warmup_steps,
          options.servers,
          std::string(intra_node_name(options.intra_node)),
          std::string(mode_name(options.mode)),
          std::string(data::io_mode_name(options.io)),
          std::string(data::read_mode_name(options.read)),
          options.cold_cache,
          options.threads,
          options.seed,
          options.out_path,
          options.trace_path,
          options.quiet,
          fault_text(options.fault),
          straggler_text(options.straggler),
          options.stall_timeout,
          options.checkpoint_path,
          options.checkpoint_path.empty() ? ""
                                          : checkpoint_every_text(options.checkpoint_every.value_or(CheckpointEvery{})),
          options.resume_path,
          options.mode == Mode::kSync && options.compress == Compression::kNone
              ? options.bucket_bytes.value_or(kDefaultBucketBytes)
              : 0,
          options.pipeline,
          options.staleness.value_or(-1),
          options.eval_every.value_or(0),
          options.target_accuracy.value_or(0.0),
          options.stop_at_target,
          options.slow_evaluation,
          options.delay_compensation.value_or(0.0),
          options.block_samples.value_or(0),
          options.block_momentum.value_or(0.0),
          options.block_lr.value_or(0.0),
          options.nesterov.value_or(false),
          std::string(compression_name(options.compress)),
          options.error_feedback,
          std::string(inter_node_name(options.inter_node))};
}

nlohmann::json options_to_json(const TrainOptions& options) {
  nlohmann::json config;
  to_json(config, options_config(options));
  return config;
}

}  // namespace psbench::train
