#include "ps/push_validator.hpp"

#include "ps/protocol_error.hpp"

namespace psbench::ps {

PushValidator::PushValidator(const Topology& topology)
    : topology_(topology),
      epoch_(static_cast<std::size_t>(topology.workers()), 0),
      done_(static_cast<std::size_t>(topology.workers()), false) {}

void PushValidator::start_at(std::span<const std::uint32_t> epochs) {
  if (epochs.size() != epoch_.size()) {
    throw ProtocolError("parameter server " + std::to_string(topology_.rank) + ": resuming " +
                        std::to_string(epochs.size()) + " workers' epochs, but the job has " +
                        std::to_string(epoch_.size()) + " workers");
  }
  epoch_.assign(epochs.begin(), epochs.end());
}

std::string PushValidator::describe(int source) const {
  if (source >= topology_.servers && source < topology_.world_size) {
    return "worker " + std::to_string(source - topology_.servers) + " (rank " + std::to_string(source) + ")";
  }
  return "rank " + std::to_string(source) + (source < topology_.servers ? " (a server)" : " (not in the job)");
}

void PushValidator::reject(int source, const std::string& problem) const {
  throw ProtocolError("parameter server " + std::to_string(topology_.rank) + " received a malformed push from " +
                      describe(source) + ": " + problem);
}

void PushValidator::check_envelope(int source, std::size_t bytes) const {
  if (source < topology_.servers || source >= topology_.world_size) reject(source, "the sender is not a worker");
  if (bytes != sizeof(PushHeader)) {
    reject(source, "header of " + std::to_string(bytes) + " bytes, expected " + std::to_string(sizeof(PushHeader)));
  }
}

void PushValidator::accept(int source, const PushHeader& header, std::uint64_t version) {
  check_envelope(source, sizeof header);
  const auto worker = static_cast<std::size_t>(source - topology_.servers);
  if (done_[worker]) reject(source, "a push after the worker said done");
  if (header.kind == PushKind::kDone || header.kind == PushKind::kAbort) {
    done_[worker] = true;
    return;
  }
  if (header.kind != PushKind::kGradient) {
    reject(source, "unknown kind " + std::to_string(static_cast<std::uint32_t>(header.kind)));
  }
  if (header.version > version) {
    reject(source, "gradient from version " + std::to_string(header.version) + ", but the shard is at version " +
                       std::to_string(version));
  }
  if (header.epoch != epoch_[worker]) {
    reject(source, "step of epoch " + std::to_string(header.epoch) + ", but the worker's steps belong to epoch " +
                       std::to_string(epoch_[worker]));
  }
  if (header.samples == 0 || header.samples > max_samples_) {
    reject(source,
           "step of " + std::to_string(header.samples) + " samples, expected 1 to " + std::to_string(max_samples_));
  }
  if (header.last_of_epoch > 1) {
    reject(source, "last-of-epoch flag " + std::to_string(header.last_of_epoch) + ", expected 0 or 1");
  }
  if (header.last_of_epoch == 1) ++epoch_[worker];
}

}  // namespace psbench::ps
