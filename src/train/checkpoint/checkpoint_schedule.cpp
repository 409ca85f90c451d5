#include "train/checkpoint/checkpoint_schedule.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "common/error.hpp"

namespace psbench::train {

CheckpointEvery parse_checkpoint_every(const std::string& text) {
  if (text == "epoch") return {};
  char* end = nullptr;
  errno = 0;
  const unsigned long long steps = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || steps == 0) {
    throw UserError("--checkpoint-every '" + text + "': expected 'epoch' or a positive whole number of steps");
  }
  return {steps};
}

std::string checkpoint_every_text(const CheckpointEvery& every) {
  return every.steps == 0 ? "epoch" : std::to_string(every.steps);
}

CheckpointSchedule::CheckpointSchedule(CheckpointEvery every, std::vector<WorkerPosition> positions,
                                       std::uint64_t steps_before)
    : every_(every), positions_(std::move(positions)), steps_(steps_before), finished_epochs_(slowest_epoch()) {}

bool CheckpointSchedule::record(std::size_t worker, std::uint32_t epoch, bool last_of_epoch) {
  ++steps_;
  advance(worker, epoch, last_of_epoch);
  bool epoch_finished = false;
  if (last_of_epoch) {  // only a worker's last step of an epoch can raise the slowest worker's epoch
    const std::uint32_t finished = slowest_epoch();
    epoch_finished = finished > finished_epochs_;
    finished_epochs_ = finished;
  }
  return every_.steps > 0 ? steps_ % every_.steps == 0 : epoch_finished;
}

bool CheckpointSchedule::record_all(std::uint32_t epoch, bool last_of_epoch) {
  for (std::size_t w = 1; w < positions_.size(); ++w) advance(w, epoch, last_of_epoch);
  return record(0, epoch, last_of_epoch);
}

void CheckpointSchedule::advance(std::size_t worker, std::uint32_t epoch, bool last_of_epoch) {
  positions_.at(worker) =
      last_of_epoch ? WorkerPosition{epoch + 1, 0} : WorkerPosition{epoch, positions_[worker].step + 1};
}

std::uint32_t CheckpointSchedule::slowest_epoch() const {
  std::uint32_t slowest = UINT32_MAX;
  for (const WorkerPosition& position : positions_) slowest = std::min(slowest, position.epoch);
  return positions_.empty() ? 0 : slowest;
}

}  // namespace psbench::train
