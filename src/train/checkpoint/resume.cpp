#include "train/checkpoint/resume.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "mpi/collective_error.hpp"

namespace psbench::train {
namespace {

std::string data_shape(const CheckpointHeader& header) {
  return std::to_string(header.training_samples) + " training samples of " + std::to_string(header.input[0]) + "x" +
         std::to_string(header.input[1]) + "x" + std::to_string(header.input[2]) + " in " +
         std::to_string(header.classes) + " classes";
}

// Differences that make the file another run's: what it was written for, and what this run is.
void check_same_run(const CheckpointHeader& found, const CheckpointHeader& expected, const std::string& path) {
  const auto refuse = [&](const std::string& problem) { throw UserError("--resume '" + path + "': " + problem); };
  if (found.model != expected.model) {
    refuse("the checkpoint is of --model " + found.model + ", not " + expected.model);
  }
  if (found.input != expected.input || found.classes != expected.classes ||
      found.training_samples != expected.training_samples) {
    refuse("the checkpoint was trained on data of " + data_shape(found) + ", but --data has " + data_shape(expected));
  }
  if (found.parameters != expected.parameters) {
    refuse("the checkpoint holds " + std::to_string(found.parameters) + " parameters, the model has " +
           std::to_string(expected.parameters));
  }
  if (found.mode != expected.mode)
    refuse("the checkpoint was written in --mode " + found.mode + ", not " + expected.mode);
  if (found.workers != expected.workers) {
    refuse("the checkpoint was written by " + std::to_string(found.workers) + " workers, but this job has " +
           std::to_string(expected.workers) +
           ": resume with as many workers (each one's data partition depends on it)");
  }
  if (found.batch != expected.batch) {
    refuse("the checkpoint was written with --batch " + std::to_string(found.batch) + ", not " +
           std::to_string(expected.batch) + " (its positions count steps of that batch)");
  }
  if (found.seed != expected.seed) {
    refuse("the checkpoint was written with --seed " + std::to_string(found.seed) + ", not " +
           std::to_string(expected.seed) + " (the shuffles depend on it)");
  }
}

// The reader packs what every rank needs besides the vectors: counters, then per-server and per-worker values.
std::vector<std::uint64_t> pack(const Checkpoint& checkpoint) {
  const CheckpointHeader& header = checkpoint.header;
  std::vector<std::uint64_t> numbers{header.epoch, header.step, static_cast<std::uint64_t>(header.servers),
                                     checkpoint.versions.size()};
  numbers.insert(numbers.end(), checkpoint.versions.begin(), checkpoint.versions.end());
  numbers.insert(numbers.end(), checkpoint.updates.begin(), checkpoint.updates.end());
  for (const WorkerPosition& position : checkpoint.positions) {
    numbers.push_back(position.epoch);
    numbers.push_back(position.step);
  }
  return numbers;
}

ResumeState unpack(const std::vector<std::uint64_t>& numbers, const std::string& path) {
  ResumeState state;
  state.path = path;
  state.epoch = static_cast<std::uint32_t>(numbers.at(0));
  state.step = numbers.at(1);
  state.servers = static_cast<int>(numbers.at(2));
  const auto entries = static_cast<std::ptrdiff_t>(numbers.at(3));
  const auto first = numbers.begin() + 4;
  state.versions.assign(first, first + entries);
  state.updates.assign(first + entries, first + 2 * entries);
  for (auto at = first + 2 * entries; at + 1 < numbers.end(); at += 2) {
    state.positions.push_back({static_cast<std::uint32_t>(*at), *(at + 1)});
  }
  return state;
}

}  // namespace

CheckpointHeader checkpoint_header_for(const TrainOptions& options, const RunSetup& setup) {
  CheckpointHeader header;
  header.model = options.model_spec;
  header.input = {setup.facts.input.channels, setup.facts.input.height, setup.facts.input.width};
  header.classes = setup.facts.num_classes;
  header.training_samples = setup.facts.total_samples;
  header.parameters = setup.parameters;
  header.seed = options.seed;
  header.batch = options.batch;
  header.mode = std::string(mode_name(options.mode));
  header.workers = setup.topology.workers();
  header.servers = setup.topology.servers;
  header.learning_rate = options.learning_rate;
  header.momentum = options.momentum;
  return header;
}

void check_resumable(const Checkpoint& checkpoint, const CheckpointHeader& expected, int epochs,
                     const std::string& path) {
  check_same_run(checkpoint.header, expected, path);
  const bool all_done = std::ranges::all_of(checkpoint.positions, [epochs](const WorkerPosition& position) {
    return position.epoch >= static_cast<std::uint32_t>(epochs);
  });
  if (all_done) {
    throw UserError("--resume '" + path + "': every worker had finished the " + std::to_string(epochs) +
                    " epochs of --epochs " + std::to_string(epochs) + ": raise --epochs to train on");
  }
}

std::optional<ResumeState> share_resume(const mpi::Communicator& world, const TrainOptions& options,
                                        const RunSetup& setup, int reader) {
  if (options.resume_path.empty()) return std::nullopt;
  std::vector<std::uint64_t> numbers;
  std::vector<float> velocity(setup.parameters);
  mpi::run_collectively(world, [&] {
    if (world.rank() != reader) return;
    Checkpoint checkpoint = read_checkpoint(options.resume_path);
    check_resumable(checkpoint, checkpoint_header_for(options, setup), options.epochs, options.resume_path);
    std::ranges::copy(checkpoint.parameters, setup.model->parameters().begin());
    velocity = std::move(checkpoint.velocity);
    numbers = pack(checkpoint);
  });
  std::uint64_t count = numbers.size();
  world.broadcast(std::span<std::uint64_t>(&count, 1), reader);
  numbers.resize(count);
  world.broadcast(std::span<std::uint64_t>(numbers), reader);
  world.broadcast(std::span<float>(velocity), reader);
  ResumeState state = unpack(numbers, options.resume_path);
  if (options.mode == Mode::kAsync && !setup.topology.is_server()) velocity = {};  // the servers keep it
  state.velocity = std::move(velocity);
  return state;
}

}  // namespace psbench::train
