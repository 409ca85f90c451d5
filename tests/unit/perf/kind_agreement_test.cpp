// Every kind reports the same two figures with one meaning: the server's busy share (its update rate times
// D_srv, the update and the links it holds) and the staleness at apply time. Checked on the published
// calibration at the configuration where the kinds once parted: one server on Blue Waters, saturated at W = 8.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "perf/calibration.hpp"
#include "perf/platform_spec.hpp"
#include "perf/predict.hpp"

namespace psbench::perf {
namespace {

// psbench model predict --calib docs/results/calib.json --platform bluewaters --model mlp:512,256 --batch 128
// --servers 1 --workers 1,8 --kind all
std::vector<Prediction> published_bluewaters_predictions() {
  const Calibration calibration = read_calibration(PSBENCH_PUBLISHED_CALIB);
  PredictRequest request;
  request.scenario.model = "mlp:512,256";
  request.scenario.batch = 128;
  request.scenario.platform = parse_platform("bluewaters", calibration.machine.cores);
  request.workers = {1, 8};
  request.servers = {1};
  request.kinds = {std::begin(kAllKinds), std::end(kAllKinds)};
  return predict(calibration, request);
}

const Prediction& find(const std::vector<Prediction>& predictions, Kind kind, int workers) {
  for (const Prediction& p : predictions) {
    if (p.kind == kind && p.workers == workers) return p;
  }
  throw std::runtime_error(std::string("no prediction of ") + kind_name(kind));
}

TEST(KindAgreement, UtilisationAndStalenessMeanTheSameInEveryKind) {
  const std::vector<Prediction> predictions = published_bluewaters_predictions();
  const Prediction& saturated = find(predictions, Kind::kSim, 8);
  ASSERT_GT(saturated.server_utilization, 0.95);  // the configuration is saturated, as the sim sees it
  for (const int workers : {1, 8}) {
    const Prediction& sim = find(predictions, Kind::kSim, workers);
    for (const Kind kind : {Kind::kIdeal, Kind::kRevised, Kind::kMva}) {  // ideal's rate capped at 1 / D_srv
      const Prediction& p = find(predictions, kind, workers);
      EXPECT_NEAR(p.server_utilization, sim.server_utilization, 0.05) << kind_name(kind) << " W = " << workers;
      EXPECT_NEAR(p.staleness_mean, sim.staleness_mean, 0.2 * sim.staleness_mean) << kind_name(kind);
    }
  }
}

}  // namespace
}  // namespace psbench::perf
