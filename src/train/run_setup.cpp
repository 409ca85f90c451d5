#include "train/run_setup.hpp"

#include <array>
#include <iomanip>
#include <sstream>
#include <string>

#include "common/check.hpp"
#include "common/error.hpp"
#include "common/resources.hpp"
#include "mpi/collective_error.hpp"
#include "nn/network_plan.hpp"
#include "ps/shard_columns.hpp"
#include "ps/shard_layout.hpp"
#include "train/checkpoint/resume.hpp"
#include "train/gradient_columns.hpp"

namespace psbench::train {
namespace {

// The transport of same-node pairs that --intra-node names.
ps::Transport intra_node_transport(IntraNode path) {
  switch (path) {
    case IntraNode::kMessages: return ps::Transport::kMessages;
    case IntraNode::kRma: return ps::Transport::kRma;
    case IntraNode::kSharedMemory: break;
  }
  return ps::Transport::kWindow;
}

// Collective (async roles): the shared memory the transports use: the node's window (--intra-node shared-memory)
// and the RMA windows (rma for either path), each with room for a packed gradient with --compress onebit.
void set_up_links(const mpi::Communicator& world, const TrainOptions& options, RunSetup& setup) {
  const ps::ShardLayout layout(setup.parameters, setup.topology.servers);
  std::size_t packed_words = 0;
  if (options.compress == Compression::kOneBit) {
    const nn::NetworkPlan plan = nn::plan_network(options.model_spec, setup.facts.input, setup.facts.num_classes);
    packed_words = ps::cut_at_shards(gradient_columns(plan), layout).words();
  }
  if (options.intra_node == IntraNode::kSharedMemory) {
    setup.link =
        std::make_unique<ps::NodeLink>(world, world.split_by_node(), setup.topology, setup.parameters, packed_words);
  }
  if (options.intra_node != IntraNode::kRma && options.inter_node != InterNode::kRma) return;
  const mpi::Communicator node = world.split_by_node();
  const ps::Transport inter = options.inter_node == InterNode::kRma ? ps::Transport::kRma : ps::Transport::kMessages;
  mpi::run_collectively(world, [&] {
    setup.rma =
        std::make_unique<ps::RmaLink>(world, node, setup.topology, layout, intra_node_transport(options.intra_node),
                                      inter, packed_words, options.stall_timeout);
  });
}

data::LoadOptions load_options(const TrainOptions& options) {
  data::LoadOptions load;
  load.path = options.data_path;
  load.split = "train";
  load.io = options.io;
  load.read = options.read;
  load.cold_cache = options.cold_cache;
  return load;
}

// The first worker read the file's header; every rank learns the shape, classes and size from it.
DataFacts share_data_facts(const mpi::Communicator& world, const std::optional<data::LoadResult>& loaded,
                           int first_worker) {
  std::array<std::uint64_t, 5> values{};
  if (loaded) {
    const data::Samples& samples = loaded->samples;
    values = {static_cast<std::uint64_t>(samples.shape.channels), static_cast<std::uint64_t>(samples.shape.height),
              static_cast<std::uint64_t>(samples.shape.width), static_cast<std::uint64_t>(samples.num_classes),
              samples.total_samples};
  }
  world.broadcast(std::span<std::uint64_t>(values), first_worker);
  DataFacts facts;
  facts.input = {static_cast<int>(values[0]), static_cast<int>(values[1]), static_cast<int>(values[2])};
  facts.num_classes = static_cast<int>(values[3]);
  facts.total_samples = values[4];
  return facts;
}

void check_against_data(const TrainOptions& options, const RunSetup& setup) {
  const int workers = setup.topology.workers();
  if (setup.facts.total_samples < static_cast<std::uint64_t>(workers)) {
    throw UserError("'" + options.data_path + "' has " + std::to_string(setup.facts.total_samples) +
                    " training samples, fewer than the " + std::to_string(workers) + " workers");
  }
  if (setup.loaded) {
    const std::size_t count = setup.loaded->samples.count();
    if (static_cast<std::size_t>(options.batch) > count) {
      throw UserError("--batch " + std::to_string(options.batch) + " is larger than worker " +
                      std::to_string(setup.topology.worker_index()) + "'s partition of " + std::to_string(count) +
                      " samples (" + std::to_string(setup.facts.total_samples) + " samples over " +
                      std::to_string(workers) + " workers): use a smaller --batch or fewer workers");
    }
  }
  nn::parameter_count_for(options.model_spec, setup.facts.input, setup.facts.num_classes);
}

// --delay-compensation: a server keeps W copies of its shard besides what it holds already (the full initial
// parameters until it is constructed, its shard, its velocity and its receive ring); refuse before training when
// the node cannot give that much.
void check_compensation_memory(const TrainOptions& options, const RunSetup& setup) {
  if (!options.delay_compensation || !setup.topology.is_server()) return;
  const ps::ShardLayout layout(setup.parameters, setup.topology.servers);
  const std::uint64_t shard = layout.size(setup.topology.rank);
  const auto workers = static_cast<std::uint64_t>(setup.topology.workers());
  const std::uint64_t copies = workers * shard * sizeof(float);
  const std::uint64_t held = (setup.parameters + shard * (options.momentum != 0.0 ? 3 : 2)) * sizeof(float);
  const std::uint64_t available = available_memory_bytes();
  if (available == 0 || copies + held <= available) return;  // unknown: let the allocation decide
  constexpr double kMiB = 1024.0 * 1024.0;
  std::ostringstream message;
  message << std::fixed << std::setprecision(1) << "--delay-compensation: parameter server " << setup.topology.rank
          << " needs " << static_cast<double>(copies) / kMiB << " MiB for " << workers << " copies of its " << shard
          << "-value shard (W x shard x 4 bytes) besides " << static_cast<double>(held) / kMiB
          << " MiB it holds already, but its node has " << static_cast<double>(available) / kMiB
          << " MiB available (MemAvailable): use more --servers, fewer workers or no --delay-compensation";
  throw UserError(message.str());
}

}  // namespace

RunSetup set_up_run(const mpi::Communicator& world, const TrainOptions& options, PhaseTimer& timer,
                    TraceRecorder& trace) {
  mpi::run_collectively(world, [&] { validate_options(options, world.size()); });
  RunSetup setup;
  setup.topology = options.mode == Mode::kAsync ? ps::Topology::async(world.size(), world.rank(), options.servers)
                                                : ps::Topology::all_workers(world.size(), world.rank());
  const bool server = setup.topology.is_server();
  const int first_worker = setup.topology.worker_rank(0);
  setup.workers = world.split(server ? 1 : 0, world.rank());

  const double load_start = monotonic_seconds();
  mpi::run_collectively(world, [&] {
    if (!server) setup.loaded = data::load_partition(setup.workers, load_options(options));
  });
  if (!server) {
    const double load_end = monotonic_seconds();
    timer.add(Phase::kInitIo, load_end - load_start);
    trace.record(SliceKind::kInitIo, load_start, load_end);
  }

  setup.facts = share_data_facts(world, setup.loaded, first_worker);
  mpi::run_collectively(world, [&] {
    check_against_data(options, setup);
    setup.parameters = nn::parameter_count_for(options.model_spec, setup.facts.input, setup.facts.num_classes);
    check_compensation_memory(options, setup);
  });
  if (options.mode == Mode::kAsync) set_up_links(world, options, setup);
  mpi::run_collectively(world, [&] {
    if (!server) {
      // The model writes its gradients into the shared window, where a local server reads them in place.
      const std::span<float> gradient_storage = setup.link ? setup.link->gradients() : std::span<float>();
      setup.model = std::make_unique<nn::Model>(options.model_spec, setup.facts.input, setup.facts.num_classes,
                                                options.batch, options.seed, options.threads, gradient_storage);
    }
    // Local mode evaluates after every epoch, and the first worker with --eval-every during training.
    if (options.mode == Mode::kLocal || (options.eval_every && setup.topology.worker_index() == 0)) {
      setup.test = data::load_split(options.data_path, "test");
    }
  });

  setup.resume = share_resume(world, options, setup, first_worker);
  // One source of truth for the initial weights: MPI writes the first worker's straight into every other
  // rank's model (or the servers' copy), so all ranks start identical whatever their thread counts.
  std::span<float> initial;
  if (server) {
    setup.initial_parameters.resize(setup.parameters);
    initial = setup.initial_parameters;
  } else {
    initial = setup.model->parameters();
    PSBENCH_CHECK(initial.size() == setup.parameters)
        << "model has " << initial.size() << " parameters, parameter_count_for says " << setup.parameters;
  }
  world.broadcast(initial, first_worker);
  return setup;
}

}  // namespace psbench::train
