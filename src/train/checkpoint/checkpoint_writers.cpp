#include "train/checkpoint/checkpoint_writers.hpp"

#include <cstdio>

#include "common/phase_timer.hpp"
#include "train/checkpoint/resume.hpp"

namespace psbench::train {
namespace {

std::vector<WorkerPosition> start_positions(const RunSetup& setup) {
  if (setup.resume) return setup.resume->positions;
  return std::vector<WorkerPosition>(static_cast<std::size_t>(setup.topology.workers()));
}

CheckpointEvery every_of(const TrainOptions& options) { return options.checkpoint_every.value_or(CheckpointEvery{}); }

// This shard's count in the run resumed from: its own, or with another server count (re-sharded) the
// checkpoint's step, which every server of that run had reached.
std::uint64_t counts_before(const RunSetup& setup) {
  if (!setup.resume) return 0;
  const ResumeState& resume = *setup.resume;
  const auto shard = static_cast<std::size_t>(setup.topology.rank);
  if (resume.servers == setup.topology.servers && shard < resume.updates.size()) return resume.updates[shard];
  return resume.step;
}

// Writes one checkpoint and adds it to tally.
void write_timed(MPI_Comm writers, const std::string& path, const CheckpointHeader& header,
                 const CheckpointSlice& slice, bool valid, CheckpointTally& tally) {
  const double start = monotonic_seconds();
  if (write_checkpoint(writers, path, header, slice, valid)) {
    ++tally.written;
  } else {
    ++tally.skipped;
  }
  tally.seconds += monotonic_seconds() - start;
}

}  // namespace

ServerCheckpoints::ServerCheckpoints(const TrainOptions& options, const RunSetup& setup, const ps::ShardLayout& layout,
                                     const ps::Server& server)
    : options_(options),
      setup_(setup),
      server_(server),
      schedule_(every_of(options), start_positions(setup), setup.resume ? setup.resume->step : 0),
      begin_(layout.begin(setup.topology.rank)),
      counts_before_(counts_before(setup)) {}

void ServerCheckpoints::on_push(int source, const ps::PushHeader& header) {
  if (options_.checkpoint_path.empty()) return;
  const auto worker = static_cast<std::size_t>(source - setup_.topology.servers);
  if (!schedule_.record(worker, header.epoch, header.last_of_epoch == 1)) return;
  CheckpointHeader file_header = checkpoint_header_for(options_, setup_);
  file_header.epoch = schedule_.finished_epochs();
  file_header.step = schedule_.steps();
  CheckpointSlice slice;
  slice.begin = begin_;
  slice.parameters = server_.shard();
  slice.velocity = server_.velocity();
  slice.version = counts_before_ + server_.version();
  slice.updates = slice.version;  // one version per applied update
  slice.positions = schedule_.positions();
  write_timed(setup_.workers.native(), options_.checkpoint_path, file_header, slice, !server_.stopping(), tally_);
}

ReplicaCheckpoints::ReplicaCheckpoints(const TrainOptions& options, const RunSetup& setup, nn::Model& model,
                                       const GradientExchange& exchange)
    : options_(options),
      setup_(setup),
      model_(model),
      exchange_(exchange),
      schedule_(every_of(options), start_positions(setup), setup.resume ? setup.resume->step : 0) {}

void ReplicaCheckpoints::after_step(const StepInfo& step, std::size_t steps_in_epoch) {
  if (options_.checkpoint_path.empty()) return;
  if (!schedule_.record_all(step.epoch, step.step + 1 == steps_in_epoch)) return;
  CheckpointHeader file_header = checkpoint_header_for(options_, setup_);
  file_header.epoch = schedule_.finished_epochs();
  file_header.step = schedule_.steps();
  CheckpointSlice slice;
  slice.parameters = model_.parameters();
  slice.velocity = exchange_.optimizer_velocity();
  slice.version = schedule_.steps();
  slice.updates = schedule_.steps();
  slice.positions = schedule_.positions();
  write_timed(MPI_COMM_SELF, options_.checkpoint_path, file_header, slice, true, tally_);
}

std::string checkpoint_line(const TrainOptions& options, const CheckpointTally& tally) {
  if (options.checkpoint_path.empty()) return "";
  char text[512];
  std::snprintf(text, sizeof text, "checkpoints: %llu written to %s in %.3f s%s",
                static_cast<unsigned long long>(tally.written), options.checkpoint_path.c_str(), tally.seconds,
                tally.skipped > 0 ? " (later ones skipped: the run was stopping)" : "");
  return text;
}

}  // namespace psbench::train
