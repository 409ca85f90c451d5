#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace psbench::ps {

/// MPI tags of the parameter-server protocol, on the servers' and workers' own duplicate of the job's
/// communicator: no message of another part of psbench can match them.
enum Tag : int {
  kTagPushHeader = 101,
  kTagPushData = 102,
  kTagPullHeader = 103,
  kTagPullData = 104,
  kTagFinalShard = 105
};

/// Values per message of a gradient or shard transfer: a shard travels as ceil(size / kChunkValues)
/// messages so the server applies and returns chunk c while chunk c+1 is still arriving.
inline constexpr std::size_t kChunkValues = std::size_t{1} << 16;

/// Gradient chunks a server receives ahead: a ring of this many chunk buffers (4 MiB), so that the received
/// gradient stays in the last-level cache at any shard size instead of streaming through memory.
inline constexpr std::size_t kRingChunks = 16;

/// Number of chunk messages that carry a shard of shard_size values (at least one).
constexpr int chunk_count(std::size_t shard_size) {
  return shard_size == 0 ? 1 : static_cast<int>((shard_size + kChunkValues - 1) / kChunkValues);
}

/// Where chunk c of a shard of shard_size values lies: offset from the shard's start, and length.
struct ChunkSpan {
  std::size_t offset = 0;  ///< first value of the chunk, from the shard's start
  std::size_t count = 0;   ///< values in the chunk
};

/// Ring slots a server receives a shard's gradient into: kRingChunks, or every chunk of a smaller shard.
constexpr int ring_chunks(std::size_t shard_size) {
  return std::min(static_cast<int>(kRingChunks), chunk_count(shard_size));
}

/// Chunk c of a shard of shard_size values (every chunk but the last holds kChunkValues).
constexpr ChunkSpan chunk_span(std::size_t shard_size, int chunk) {
  const std::size_t offset = static_cast<std::size_t>(chunk) * kChunkValues;
  return {offset, offset < shard_size ? std::min(kChunkValues, shard_size - offset) : 0};
}

/// What a push header announces. kAbort is a kDone that also stops the run: the worker's loss became
/// non-finite, so the server applies nothing more and answers every later push with kAbortedVersion.
enum class PushKind : std::uint32_t { kGradient = 0, kDone = 1, kAbort = 2 };

/// The shard version a stopping server answers with: a worker that pulls it stops training.
inline constexpr std::uint64_t kAbortedVersion = UINT64_MAX;

/// Sent by a worker before each gradient shard (and alone, with kind kDone or kAbort, when it has finished).
struct PushHeader {
  std::uint64_t version = 0;            ///< shard version the gradient was computed from
  double loss = 0.0;                    ///< mean minibatch loss of this step (for progress reporting)
  std::uint32_t epoch = 0;              ///< epoch of this step, from 0
  std::uint32_t samples = 0;            ///< samples in this step
  PushKind kind = PushKind::kGradient;  ///< gradient or done
  std::uint32_t last_of_epoch = 0;      ///< 1 on the worker's last step of an epoch
};

/// Sent by a server before each fresh shard.
struct PullHeader {
  std::uint64_t version = 0;  ///< shard version after applying the push
};

}  // namespace psbench::ps
