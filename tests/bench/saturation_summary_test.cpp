#include "saturation_summary.hpp"

#include <gtest/gtest.h>

namespace psbench::bench {
namespace {

std::vector<SaturationPoint> rising_then_flat(const std::vector<double>& rates) {
  std::vector<SaturationPoint> points;
  for (std::size_t i = 0; i < rates.size(); ++i) points.push_back({static_cast<int>(i) + 1, rates[i]});
  return points;
}

TEST(FindKnee, PlateauIsTheMedianOfTheLargestThird) {
  // 9 points: the largest third is k = 7..9 with 98, 103, 100: median 100.
  const Knee knee = find_knee(rising_then_flat({20, 40, 60, 80, 95, 97, 98, 103, 100}));
  EXPECT_DOUBLE_EQ(knee.plateau_updates_per_s, 100.0);
  EXPECT_EQ(knee.clients, 5);  // 95 is the first within 10% of 100 (80 is not)
}

TEST(FindKnee, OneHighPointDoesNotMoveThePlateau) {
  const Knee knee = find_knee(rising_then_flat({50, 90, 100, 100, 100, 400}));
  EXPECT_DOUBLE_EQ(knee.plateau_updates_per_s, 250.0);  // the largest third: k = 5, 6
  const Knee steady = find_knee(rising_then_flat({50, 90, 100, 100, 100, 100, 100, 400, 100}));
  EXPECT_DOUBLE_EQ(steady.plateau_updates_per_s, 100.0);
  EXPECT_EQ(steady.clients, 2);
}

TEST(FindKnee, NoRiseMeansAKneeAtOneClient) {
  const Knee knee = find_knee(rising_then_flat({100, 101, 99}));
  EXPECT_EQ(knee.clients, 1);
}

TEST(MedianPoint, EachFigureIsItsOwnMedian) {
  // Three repetitions of k = 4; the slow one (a descheduled moment) holds the lowest rate and the longest
  // response, and neither survives the median.
  const std::vector<SaturationPoint> repeats{{4, 900.0, 0.95, 4100.0, 3.7, 1010.0, 2100.0, 40.0, 800.0},
                                             {4, 400.0, 0.70, 9000.0, 3.6, 1500.0, 2200.0, 90.0, 1300.0},
                                             {4, 1000.0, 0.99, 3900.0, 3.9, 990.0, 2050.0, 35.0, 780.0}};
  const SaturationPoint point = median_point(repeats);
  EXPECT_EQ(point.clients, 4);
  EXPECT_DOUBLE_EQ(point.updates_per_s, 900.0);
  EXPECT_DOUBLE_EQ(point.utilization, 0.95);
  EXPECT_DOUBLE_EQ(point.response_us, 4100.0);
  EXPECT_DOUBLE_EQ(point.queue_length, 3.7);
  EXPECT_DOUBLE_EQ(point.service_us, 1010.0);
  EXPECT_DOUBLE_EQ(point.think_us, 2100.0);
  EXPECT_DOUBLE_EQ(point.client_cpu_us, 40.0);
  EXPECT_DOUBLE_EQ(point.server_cpu_us, 800.0);
  EXPECT_DOUBLE_EQ(median_point({repeats[0], repeats[1]}).updates_per_s, 650.0);
}

TEST(ModelKnee, IsThinkPlusServiceOverService) {
  EXPECT_DOUBLE_EQ(model_knee(2000.0, 250.0), 9.0);
  EXPECT_DOUBLE_EQ(model_knee(0.0, 250.0), 1.0);
}

}  // namespace
}  // namespace psbench::bench
