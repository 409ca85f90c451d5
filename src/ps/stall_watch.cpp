#include "ps/stall_watch.hpp"

#include <cstdio>

#include "ps/protocol_error.hpp"

namespace psbench::ps {
namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

std::string timeout_flag(double timeout_s) {
  char text[48];
  std::snprintf(text, sizeof text, "--stall-timeout %g", timeout_s);
  return text;
}

}  // namespace

SilenceWatch::SilenceWatch(const Topology& topology, double now, double timeout_s)
    : topology_(topology),
      timeout_(timeout_s > 0.0 ? timeout_s : 0.0),
      last_heard_(static_cast<std::size_t>(topology.workers()), now),
      pushes_since_(static_cast<std::size_t>(topology.workers()), 0),
      watched_(static_cast<std::size_t>(topology.workers()), true) {}

void SilenceWatch::heard(int source, double now) {
  const auto worker = static_cast<std::size_t>(source - topology_.servers);
  ++pushes_;
  last_heard_[worker] = now;
  pushes_since_[worker] = pushes_;
}

void SilenceWatch::finished(int source) { watched_[static_cast<std::size_t>(source - topology_.servers)] = false; }

void SilenceWatch::check(double now) const {
  if (timeout_ <= 0.0) return;
  std::size_t silent = last_heard_.size();  // the watched worker heard from longest ago
  for (std::size_t w = 0; w < last_heard_.size(); ++w) {
    if (watched_[w] && (silent == last_heard_.size() || last_heard_[w] < last_heard_[silent])) silent = w;
  }
  if (silent == last_heard_.size() || now - last_heard_[silent] < timeout_) return;
  const std::uint64_t others = pushes_ - pushes_since_[silent];
  const int rank = topology_.worker_rank(static_cast<int>(silent));
  throw PeerStalled("parameter server " + std::to_string(topology_.rank) + ": worker " + std::to_string(silent) +
                    " (rank " + std::to_string(rank) + ") has sent nothing for " +
                    seconds_text(now - last_heard_[silent]) +
                    (others > 0 ? ", while the other workers pushed " + std::to_string(others) + " times"
                                : ", and no other worker pushed either") +
                    " (" + timeout_flag(timeout_) + "): it is stalled or lost, so the job ends");
}

std::string silent_server_message(int worker_rank, int shard, int server_rank, double seconds, double timeout_s) {
  return "worker rank " + std::to_string(worker_rank) + ": parameter server " + std::to_string(shard) + " (rank " +
         std::to_string(server_rank) + ") has not answered a push for " + seconds_text(seconds) + " (" +
         timeout_flag(timeout_s) + "): it is stalled or lost, so the job ends";
}

std::string unread_reply_message(int shard, int worker, int worker_rank, double seconds, double timeout_s) {
  return "parameter server " + std::to_string(shard) + ": worker " + std::to_string(worker) + " (rank " +
         std::to_string(worker_rank) + ") has not taken a reply's one-sided writes for " + seconds_text(seconds) +
         " (" + timeout_flag(timeout_s) + "): it is stalled or lost, so the job ends";
}

}  // namespace psbench::ps
