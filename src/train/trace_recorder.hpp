#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/phase_timer.hpp"

namespace psbench::train {

/// What a trace slice shows: one of the timed phases, or a span that is not a phase of its own.
enum class SliceKind : std::uint8_t {
  kInitIo,
  kInitTotal,
  kCompute,
  kPush,
  kPull,
  kCompress,
  kServerUpdate,
  kServerIdle,
  kTotal,
  kEpoch,
  kServe,
  kEvaluate
};

/// Number of entries in SliceKind.
inline constexpr std::size_t kSliceKindCount = 12;

/// The slice kind that shows a phase.
SliceKind slice_of(Phase phase);
/// The name a slice kind has in the trace.
std::string_view slice_name(SliceKind kind);

/// Keeps a bounded, evenly spread sample of one rank's phase occurrences for a Chrome trace.
/// Each kind keeps at most `capacity` slices: when full, every other kept slice is dropped and only every
/// 2^k-th later occurrence is kept (decimation), so memory is fixed at construction and the kept slices
/// still span the whole run. Counts and seconds of all occurrences are kept exactly.
class TraceRecorder {
 public:
  /// A recorder keeping up to capacity slices per kind; capacity 0 records nothing.
  explicit TraceRecorder(std::size_t capacity = 0);
  /// True when recording.
  [[nodiscard]] bool enabled() const { return capacity_ > 0; }
  /// Records one occurrence from start to end (monotonic seconds); label_index numbers epochs.
  void record(SliceKind kind, double start, double end, std::uint32_t label_index = 0);
  /// Records the bytes this rank's exchange has sent and received so far, at time at (monotonic seconds): one
  /// sample of its counter track; called at each epoch's end and after the last step, so memory grows by epochs.
  void record_bytes(double at, std::uint64_t sent, std::uint64_t received);
  /// Trace-event JSON objects of this rank (comma-separated, no brackets) with times relative to origin,
  /// on track tid = rank, named after the rank's role.
  [[nodiscard]] std::string events_json(int rank, const std::string& track_name, double origin) const;

  /// Slice capacity per kind that keeps a trace of ranks tracks under the size budget.
  static std::size_t capacity_for(int ranks);

 private:
  struct Slice {
    double start = 0.0;
    double duration = 0.0;
    std::uint32_t label = 0;
  };
  struct Track {
    std::vector<Slice> kept;
    std::uint64_t stride = 1;
    std::uint64_t occurrences = 0;
    double seconds = 0.0;
  };
  struct BytesSample {
    double at = 0.0;
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
  };
  std::size_t capacity_;
  std::array<Track, kSliceKindCount> tracks_;
  std::vector<BytesSample> bytes_;
};

}  // namespace psbench::train
