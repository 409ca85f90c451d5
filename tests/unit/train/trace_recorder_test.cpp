#include "train/trace_recorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace psbench::train {
namespace {

nlohmann::json parse_events(const TraceRecorder& recorder, int rank) {
  return nlohmann::json::parse("[" + recorder.events_json(rank, "rank " + std::to_string(rank), 100.0) + "]");
}

TEST(TraceRecorder, DisabledRecorderRecordsNothingButTheTrackName) {
  TraceRecorder recorder;
  EXPECT_FALSE(recorder.enabled());
  recorder.record(SliceKind::kCompute, 100.0, 101.0);
  const auto events = parse_events(recorder, 3);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0]["ph"], "M");
  EXPECT_EQ(events[0]["tid"], 3);
}

TEST(TraceRecorder, SlicesAreCompleteEventsInMicrosecondsFromTheOrigin) {
  TraceRecorder recorder(8);
  recorder.record(SliceKind::kPush, 100.5, 100.75);
  const auto events = parse_events(recorder, 1);
  const auto slice = std::find_if(events.begin(), events.end(), [](const auto& e) { return e["ph"] == "X"; });
  ASSERT_NE(slice, events.end());
  EXPECT_EQ((*slice)["name"], "push");
  EXPECT_EQ((*slice)["tid"], 1);
  EXPECT_DOUBLE_EQ((*slice)["ts"].get<double>(), 500000.0);
  EXPECT_DOUBLE_EQ((*slice)["dur"].get<double>(), 250000.0);
}

TEST(TraceRecorder, DecimationKeepsAnEvenSpreadWithinCapacityAndExactTotals) {
  constexpr std::size_t kCapacity = 16;
  TraceRecorder recorder(kCapacity);
  for (int i = 0; i < 1000; ++i) recorder.record(SliceKind::kCompute, 100.0 + i, 100.0 + i + 0.5);
  const auto events = parse_events(recorder, 0);
  std::vector<double> starts;
  for (const auto& event : events) {
    if (event["ph"] == "X") starts.push_back(event["ts"].get<double>() / 1e6);
    if (event["ph"] == "i") {
      EXPECT_EQ(event["args"]["occurrences"], 1000);
      EXPECT_DOUBLE_EQ(event["args"]["seconds"].get<double>(), 500.0);
    }
  }
  ASSERT_LE(starts.size(), kCapacity);
  ASSERT_GE(starts.size(), kCapacity / 2);
  EXPECT_DOUBLE_EQ(starts.front(), 0.0);
  // Kept occurrences are every 64th: 0, 64, ..., 960, so they reach the end of the run.
  for (std::size_t i = 1; i < starts.size(); ++i) EXPECT_DOUBLE_EQ(starts[i] - starts[i - 1], 64.0);
  EXPECT_GE(starts.back(), 900.0);
}

TEST(TraceRecorder, EpochSlicesAreNamedByNumber) {
  TraceRecorder recorder(4);
  recorder.record(SliceKind::kEpoch, 100.0, 110.0, 2);
  const auto events = parse_events(recorder, 0);
  bool found = false;
  for (const auto& event : events) found = found || event["name"] == "epoch 3";
  EXPECT_TRUE(found);
}

TEST(TraceRecorder, CapacityShrinksWithRanksToStayUnderTheBudget) {
  EXPECT_GE(TraceRecorder::capacity_for(1), TraceRecorder::capacity_for(1000));
  // Even at the largest capacity the kept slices of all kinds and ranks fit well under 100 MB.
  for (const int ranks : {1, 4, 64, 1024}) {
    const double bytes = 130.0 * static_cast<double>(TraceRecorder::capacity_for(ranks)) * kSliceKindCount * ranks;
    EXPECT_LT(bytes, 100e6) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace psbench::train
