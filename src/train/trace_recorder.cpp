#include "train/trace_recorder.hpp"

#include <algorithm>
#include <cstdio>

namespace psbench::train {
namespace {

// Bytes one serialised slice takes at most, and the budget that keeps a trace well under 100 MB.
constexpr std::size_t kBytesPerSlice = 120;
constexpr std::size_t kTraceBudgetBytes = 80U * 1000U * 1000U;
constexpr std::size_t kMaxCapacity = 16384;
constexpr std::size_t kMinCapacity = 16;

std::string json_escape(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

SliceKind slice_of(Phase phase) { return static_cast<SliceKind>(static_cast<std::uint8_t>(phase)); }

std::string_view slice_name(SliceKind kind) {
  switch (kind) {
    case SliceKind::kEpoch: return "epoch";
    case SliceKind::kServe: return "serve";
    case SliceKind::kEvaluate: return "evaluate";
    default: return phase_name(static_cast<Phase>(static_cast<std::uint8_t>(kind)));
  }
}

TraceRecorder::TraceRecorder(std::size_t capacity) : capacity_(capacity) {
  for (auto& track : tracks_) track.kept.reserve(capacity_);
}

std::size_t TraceRecorder::capacity_for(int ranks) {
  const std::size_t per_rank = kTraceBudgetBytes / kBytesPerSlice / static_cast<std::size_t>(std::max(ranks, 1));
  return std::clamp(per_rank / kSliceKindCount, kMinCapacity, kMaxCapacity);
}

void TraceRecorder::record(SliceKind kind, double start, double end, std::uint32_t label_index) {
  if (capacity_ == 0) return;
  Track& track = tracks_[static_cast<std::size_t>(kind)];
  const std::uint64_t occurrence = track.occurrences++;
  track.seconds += end - start;
  if (occurrence % track.stride != 0) return;
  if (track.kept.size() == capacity_) {
    // Keeps the slices at even positions, which are exactly the occurrences divisible by twice the stride.
    std::size_t out = 0;
    for (std::size_t in = 0; in < track.kept.size(); in += 2) track.kept[out++] = track.kept[in];
    track.kept.resize(out);
    track.stride *= 2;
    if (occurrence % track.stride != 0) return;
  }
  track.kept.push_back(Slice{start, end - start, label_index});
}

void TraceRecorder::record_bytes(double at, std::uint64_t sent, std::uint64_t received) {
  if (enabled()) bytes_.push_back({at, sent, received});
}

std::string TraceRecorder::events_json(int rank, const std::string& track_name, double origin) const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                R"({"name":"thread_name","ph":"M","pid":0,"tid":%d,"args":{"name":"%s"}},)"
                R"({"name":"thread_sort_index","ph":"M","pid":0,"tid":%d,"args":{"sort_index":%d}})",
                rank, json_escape(track_name).c_str(), rank, rank);
  out += line;
  for (std::size_t k = 0; k < kSliceKindCount; ++k) {
    const auto kind = static_cast<SliceKind>(k);
    const Track& track = tracks_[k];
    const std::string name(slice_name(kind));
    for (const Slice& slice : track.kept) {
      const double ts = (slice.start - origin) * 1e6;
      const double dur = slice.duration * 1e6;
      if (kind == SliceKind::kEpoch) {
        std::snprintf(line, sizeof line,
                      R"(,{"name":"epoch %u","cat":"epoch","ph":"X","pid":0,"tid":%d,"ts":%.3f,"dur":%.3f})",
                      slice.label + 1, rank, ts, dur);
      } else {
        std::snprintf(line, sizeof line,
                      R"(,{"name":"%s","cat":"phase","ph":"X","pid":0,"tid":%d,"ts":%.3f,"dur":%.3f})", name.c_str(),
                      rank, ts, dur);
      }
      out += line;
    }
    if (track.occurrences > 0) {
      std::snprintf(line, sizeof line,
                    R"(,{"name":"%s totals","cat":"summary","ph":"i","s":"t","pid":0,"tid":%d,"ts":0,)"
                    R"("args":{"occurrences":%llu,"kept":%zu,"seconds":%.9g}})",
                    name.c_str(), rank, static_cast<unsigned long long>(track.occurrences), track.kept.size(),
                    track.seconds);
      out += line;
    }
  }
  for (const BytesSample& sample : bytes_) {
    std::snprintf(line, sizeof line,
                  R"(,{"name":"rank %d exchange bytes","cat":"bytes","ph":"C","pid":0,"tid":%d,"ts":%.3f,)"
                  R"("args":{"sent":%llu,"received":%llu}})",
                  rank, rank, (sample.at - origin) * 1e6, static_cast<unsigned long long>(sample.sent),
                  static_cast<unsigned long long>(sample.received));
    out += line;
  }
  return out;
}

}  // namespace psbench::train
